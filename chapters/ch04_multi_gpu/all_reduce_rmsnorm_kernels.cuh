// The kernels of the all_reduce_rmsnorm pairs (all_reduce_rmsnorm_kernels.cu), compiled once and
// launched from the host-only variants. Both end a tensor-parallel layer at decode: each GPU
// holds a partial sum of the layer's output (a row-parallel GEMM's), bf16, rows x kHidden; the
// layer's output is the sum over the GPUs, added to the residual stream, then RMS-normalized for
// the next layer. Per row r of GPU d:
//   reduced      = bf16( sum over g of partial_g[r] )        (what an all-reduce of bf16 returns)
//   residual_out = bf16( residual_d[r] + reduced )           (the new residual stream)
//   normed       = bf16( residual_out * gamma_d / sqrt(mean(residual_out^2) + eps) )
// Both kernels finish a row with the same device code (one block per row, the same reduction
// order), so on 2 GPUs, where the all-reduce's a + b is one rounding in any order, they agree bit
// for bit; the only difference between the pairs' variants is where `reduced` comes from.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace aisp::ch04 {

// A Llama-3-70B-sized hidden dimension. One block of kHidden / 8 = 1024 threads per row, each
// thread one 16-byte vector of 8 bf16.
inline constexpr int kRmsNormHidden = 8192;
inline constexpr float kRmsNormEpsilon = 1e-5f;
// The most GPUs the one-shot kernel takes (its argument block holds one peer pointer per GPU):
// one NVLink domain of an HGX board.
inline constexpr int kOneShotMaxGpus = 8;

struct ResidualRmsNormOperands {
  const __nv_bfloat16* residual = nullptr;  // rows x kHidden, this GPU's
  const __nv_bfloat16* gamma = nullptr;     // kHidden, this GPU's
  __nv_bfloat16* residual_out = nullptr;    // rows x kHidden
  __nv_bfloat16* normed = nullptr;          // rows x kHidden
  int rows = 0;
};

// Baseline's second step: `reduced` (rows x kHidden, the all-reduce's result on this GPU) added to
// the residual and normalized. One launch on `stream` (the current device's); checked.
void launch_residual_rmsnorm(const __nv_bfloat16* reduced, const ResidualRmsNormOperands& x,
                             cudaStream_t stream);

// The one-shot all-reduce fused with the residual add and the norm, GPU `rank` of `gpus`. Each
// GPU pushes its partial rows into every peer's mailbox over NVLink, raises a flag per (sender,
// row) in the peer's memory, waits for every peer's flag of the same row and call, and sums the
// rows from its own mailbox (all_reduce_rmsnorm_kernels.cu: the barrier and why it cannot
// deadlock or read stale data).
struct OneShotOperands {
  const __nv_bfloat16* partial = nullptr;  // rows x kHidden, this GPU's partial sum
  ResidualRmsNormOperands norm;
  // Per GPU g of the run (index = rank), pointers this GPU may dereference (peer access): GPU g's
  // mailbox, 2 x gpus x rows x kHidden bf16 (two halves, used by alternate calls), and GPU g's
  // flags, gpus x rows uint64 (GPU s's flag for row r at s * rows + r), zeroed before the first
  // call.
  __nv_bfloat16* mailbox[kOneShotMaxGpus] = {};
  std::uint64_t* flags[kOneShotMaxGpus] = {};
  // This GPU's calls so far, one counter per row (its block's), zeroed before the first call.
  std::uint64_t* calls = nullptr;
  int rank = 0;
  int gpus = 0;
};

// One launch on `stream` (the current device, GPU `rank`). Every GPU of the run must launch it
// once per call (the calls of all GPUs pair up by count). Throws std::invalid_argument on bad
// operands; checked.
void launch_one_shot_all_reduce_rmsnorm(const OneShotOperands& x, cudaStream_t stream);

}  // namespace aisp::ch04
