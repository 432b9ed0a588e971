// The all_reduce_rmsnorm kernels (all_reduce_rmsnorm_kernels.cuh says what they compute). One
// block of 1024 threads per row of kHidden = 8192 bf16, each thread one 16-byte vector.
//
// residual_rmsnorm (the baseline's second launch): per row reads the all-reduced row, the residual
// row and gamma (3 x 16 KiB) and writes residual_out and normed (2 x 16 KiB): 80 KiB of HBM per
// row, about 5 FLOPs per element. Bound at decode sizes by its launch and one block's latency,
// not by HBM (1 to 16 rows).
//
// one_shot_all_reduce_rmsnorm (the optimized variant): the same per row, plus the all-reduce done
// by the kernel itself. Per row and call each GPU stores its 16 KiB partial row into each of the
// G-1 peers' mailboxes over NVLink (remote stores: posted writes, no round trip per vector), so
// the link carries (G-1) x 16 KiB per row each way, the same bytes as NCCL's one-shot (LL)
// all-reduce and fewer than a ring's 2(G-1)/G x G; then it reads the G-1 peers' rows from its
// own HBM. What bounds it at 16 KiB to 256 KiB is latency: one launch, one NVLink write of the
// data and one of a flag, one poll; not bandwidth.
//
// The barrier between the GPUs, per row (block b of every GPU works on row b, so blocks pair up
// across GPUs; no block waits for another block of its own GPU):
//   call number  c = calls[b] + 1 (this GPU's calls so far, kept per block in its own memory, so
//                    the kernel is the same every call and could be captured in a graph);
//   push         the row into mailbox half (c & 1) of every peer, slot [rank][b];
//   signal       __syncthreads, then one thread: fence.sc.sys (the block's remote stores are
//                performed system-wide before what follows) and st.release.sys of c into
//                flags[rank][b] on every peer;
//   wait         thread g (one per peer) polls its own GPU's flags[g][b] with ld.acquire.sys
//                until it reads >= c; __syncthreads hands the acquire to the block;
//   sum          the G rows of mailbox half (c & 1) (its own from registers), in rank order.
// Why it cannot read stale data: a flag is written after the row it guards, behind a system-scope
// fence, and read with acquire, so a reader that sees c sees call c's row. A flag only grows
// (c, then c+1, ...): reading c+1 (the peer already in its next call) also proves call c's row is
// there, since the peer wrote it before it wrote c+1; and call c+1 writes the other half, so it
// cannot overwrite the row being read. Call c+2 writes the same half again, but a GPU starts
// call c+2 only after its call c+1 saw the peer's flag >= c+1, which the peer raises in its call
// c+1, after its whole call-c kernel, reads included, finished (one stream, kernels in order).
// Why it cannot deadlock: before waiting, a block only stores (push, signal), which never waits,
// so each block's wait ends once the same block of every peer has been scheduled. Every block is
// resident at once (rows <= 16 blocks of 1024 threads, one per SM, on a GPU with >= 16 SMs and
// nothing else running on it: the harness synchronizes every GPU before a sample), and every
// GPU launches the kernel once per call (run() does), so the calls pair up by count on every
// GPU. A peer that never arrives (its launch failed, it faulted) would hang the poll: after 10 s
// the poll prints what it waited for and traps, so the pair fails with a message, not a hang.
// Not safe under a profiler that replays one kernel on its own (Nsight Compute's kernel replay):
// the peer's kernel is not replayed with it; profile with application replay or Nsight Systems.
#include "all_reduce_rmsnorm_kernels.cuh"

#include <aisp/check.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace aisp::ch04 {
namespace {

constexpr int kThreads = kRmsNormHidden / 8;  // 1024: one 16-byte vector of 8 bf16 each
constexpr int kWarps = kThreads / 32;
static_assert(kWarps <= 32, "the block sum reduces one value per warp within one warp");
constexpr unsigned long long kPollTimeoutNs = 10ull * 1000 * 1000 * 1000;

__device__ __forceinline__ void unpack(const uint4& v, float (&f)[8]) {
  const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 pair = __bfloat1622float2(h[i]);
    f[2 * i] = pair.x;
    f[2 * i + 1] = pair.y;
  }
}

__device__ __forceinline__ uint4 pack(const float (&f)[8]) {
  uint4 v;
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i)
    h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
  return v;
}

// The sum over the block, the same order in every kernel and call (xor butterfly in each warp,
// then warp 0 over the warps' sums): both variants get the same bits.
__device__ __forceinline__ float block_sum(float value, float* warp_sums) {
#pragma unroll
  for (int step = 16; step > 0; step >>= 1)
    value += __shfl_xor_sync(0xffffffffu, value, step);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  if (lane == 0)
    warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    float total = lane < kWarps ? warp_sums[lane] : 0.0f;
#pragma unroll
    for (int step = 16; step > 0; step >>= 1)
      total += __shfl_xor_sync(0xffffffffu, total, step);
    if (lane == 0)
      warp_sums[32] = total;
  }
  __syncthreads();
  return warp_sums[32];
}

// Rounds the all-reduced values to bf16 (the all-reduce's output type), adds the residual, stores
// residual_out, normalizes by the RMS of the stored residual_out and stores normed. Row `row`,
// this thread's 8 elements at `column`.
__device__ __forceinline__ void finish_row(float (&reduced)[8], int row, int column,
                                           const ResidualRmsNormOperands& x, float* warp_sums) {
  const std::size_t offset = static_cast<std::size_t>(row) * kRmsNormHidden + column;
  float residual[8];
  float gamma[8];
  unpack(*reinterpret_cast<const uint4*>(x.residual + offset), residual);
  unpack(*reinterpret_cast<const uint4*>(x.gamma + column), gamma);
  // reduced -> bf16 -> float: exactly the value a bf16 all-reduce hands the baseline.
  const uint4 reduced_bf16 = pack(reduced);
  unpack(reduced_bf16, reduced);
  float out[8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    out[i] = residual[i] + reduced[i];
  const uint4 out_bf16 = pack(out);
  *reinterpret_cast<uint4*>(x.residual_out + offset) = out_bf16;
  unpack(out_bf16, out);  // normalize what was stored
  float squares = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i)
    squares = fmaf(out[i], out[i], squares);
  const float total = block_sum(squares, warp_sums);
  const float scale = rsqrtf(total / static_cast<float>(kRmsNormHidden) + kRmsNormEpsilon);
  float normed[8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    normed[i] = out[i] * scale * gamma[i];
  *reinterpret_cast<uint4*>(x.normed + offset) = pack(normed);
}

__global__ void __launch_bounds__(kThreads)
    residual_rmsnorm_kernel(const __nv_bfloat16* reduced, ResidualRmsNormOperands x) {
  __shared__ float warp_sums[33];
  const int row = static_cast<int>(blockIdx.x);
  const int column = static_cast<int>(threadIdx.x) * 8;
  float values[8];
  unpack(*reinterpret_cast<const uint4*>(reduced + static_cast<std::size_t>(row) * kRmsNormHidden +
                                         column),
         values);
  finish_row(values, row, column, x, warp_sums);
}

__device__ __forceinline__ void store_release_system(std::uint64_t* address, std::uint64_t value) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(address), "l"(value) : "memory");
}

__device__ __forceinline__ std::uint64_t load_acquire_system(const std::uint64_t* address) {
  std::uint64_t value;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(value) : "l"(address) : "memory");
  return value;
}

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void __launch_bounds__(kThreads) one_shot_all_reduce_rmsnorm_kernel(OneShotOperands x) {
  __shared__ float warp_sums[33];
  const int row = static_cast<int>(blockIdx.x);
  const int thread = static_cast<int>(threadIdx.x);
  const int column = thread * 8;
  const int rows = x.norm.rows;
  // Only this block (of this GPU) writes calls[row], in earlier kernels of the same stream.
  const std::uint64_t call = x.calls[row] + 1;
  const int half = static_cast<int>(call & 1);
  const auto slot = [&](int sender) {
    return (static_cast<std::size_t>(half * x.gpus + sender) * rows + row) * kRmsNormHidden +
           column;
  };
  const uint4 mine = *reinterpret_cast<const uint4*>(
      x.partial + static_cast<std::size_t>(row) * kRmsNormHidden + column);

  // Push: this GPU's row into every peer's mailbox.
  for (int peer = 0; peer < x.gpus; ++peer)
    if (peer != x.rank)
      *reinterpret_cast<uint4*>(x.mailbox[peer] + slot(x.rank)) = mine;
  __syncthreads();
  // Signal: the block's stores ordered before the flags, system-wide.
  if (thread == 0) {
    __threadfence_system();
    for (int peer = 0; peer < x.gpus; ++peer)
      if (peer != x.rank)
        store_release_system(x.flags[peer] + static_cast<std::size_t>(x.rank) * rows + row, call);
  }
  // Wait: one thread per peer, on this GPU's own flags.
  if (thread < x.gpus && thread != x.rank) {
    const std::uint64_t* flag = x.flags[x.rank] + static_cast<std::size_t>(thread) * rows + row;
    const std::uint64_t start = global_timer_ns();
    std::uint64_t seen = load_acquire_system(flag);
    while (seen < call) {
      if (global_timer_ns() - start > kPollTimeoutNs) {
        printf("one_shot_all_reduce_rmsnorm: GPU rank %d, row %d waited 10 s for rank %d's call "
               "%llu (its flag reads %llu): that GPU's kernel was not launched or faulted\n",
               x.rank, row, thread, static_cast<unsigned long long>(call),
               static_cast<unsigned long long>(seen));
        __trap();
      }
      seen = load_acquire_system(flag);
    }
  }
  __syncthreads();

  // Sum in rank order (fp32; on 2 GPUs a + b is exact before finish_row's rounding to bf16).
  // __ldcg: read at L2, where the peers' stores land; nothing here is worth keeping in L1.
  float reduced[8] = {};
  for (int sender = 0; sender < x.gpus; ++sender) {
    const uint4 v = sender == x.rank
                        ? mine
                        : __ldcg(reinterpret_cast<const uint4*>(x.mailbox[x.rank] + slot(sender)));
    float f[8];
    unpack(v, f);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      reduced[i] += f[i];
  }
  finish_row(reduced, row, column, x.norm, warp_sums);
  if (thread == 0)
    x.calls[row] = call;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

void check_norm_operands(const ResidualRmsNormOperands& x, const char* kernel) {
  if (x.rows <= 0 || x.residual == nullptr || x.gamma == nullptr || x.residual_out == nullptr ||
      x.normed == nullptr || !aligned16(x.residual) || !aligned16(x.gamma) ||
      !aligned16(x.residual_out) || !aligned16(x.normed))
    throw std::invalid_argument(std::string(kernel) +
                                ": needs rows > 0 and non-null, 16-byte aligned residual, gamma, "
                                "residual_out and normed (rows " +
                                std::to_string(x.rows) + ")");
}

}  // namespace

void launch_residual_rmsnorm(const __nv_bfloat16* reduced, const ResidualRmsNormOperands& x,
                             cudaStream_t stream) {
  check_norm_operands(x, "residual_rmsnorm");
  if (reduced == nullptr || !aligned16(reduced))
    throw std::invalid_argument("residual_rmsnorm: the all-reduced input must be non-null and "
                                "16-byte aligned");
  residual_rmsnorm_kernel<<<x.rows, kThreads, 0, stream>>>(reduced, x);
  AISP_CHECK_LAUNCH();
}

void launch_one_shot_all_reduce_rmsnorm(const OneShotOperands& x, cudaStream_t stream) {
  check_norm_operands(x.norm, "one_shot_all_reduce_rmsnorm");
  if (x.gpus < 2 || x.gpus > kOneShotMaxGpus || x.rank < 0 || x.rank >= x.gpus)
    throw std::invalid_argument("one_shot_all_reduce_rmsnorm: needs 2.." +
                                std::to_string(kOneShotMaxGpus) +
                                " GPUs and a rank among them "
                                "(gpus " +
                                std::to_string(x.gpus) + ", rank " + std::to_string(x.rank) + ")");
  if (x.partial == nullptr || !aligned16(x.partial) || x.calls == nullptr)
    throw std::invalid_argument("one_shot_all_reduce_rmsnorm: partial (16-byte aligned) and the "
                                "call counters must be given");
  for (int g = 0; g < x.gpus; ++g)
    if (x.mailbox[g] == nullptr || !aligned16(x.mailbox[g]) || x.flags[g] == nullptr)
      throw std::invalid_argument("one_shot_all_reduce_rmsnorm: GPU " + std::to_string(g) +
                                  "'s mailbox (16-byte aligned) and flags must be given");
  one_shot_all_reduce_rmsnorm_kernel<<<x.norm.rows, kThreads, 0, stream>>>(x);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::ch04
