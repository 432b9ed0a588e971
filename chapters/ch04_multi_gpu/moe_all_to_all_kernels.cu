// moe_all_to_all_kernels.cuh: the packing kernel. One block per send row, one thread per 16-byte
// vector (hidden / 8 threads); block 0 also writes the per-destination counts.
#include "moe_all_to_all_kernels.cuh"

#include <aisp/check.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace aisp::ch04 {
namespace {

__global__ void moe_pack_by_destination(const uint4* __restrict__ x,
                                        const int* __restrict__ sorted_rows, int top_k,
                                        int vectors_per_row, const int* __restrict__ expert_offsets,
                                        int experts_per_gpu, int gpus, uint4* __restrict__ send,
                                        int* __restrict__ send_counts) {
  const int row = static_cast<int>(blockIdx.x);
  const int token = sorted_rows[row] / top_k;
  const int v = static_cast<int>(threadIdx.x);
  if (v < vectors_per_row)
    send[static_cast<std::size_t>(row) * vectors_per_row + v] =
        x[static_cast<std::size_t>(token) * vectors_per_row + v];
  if (row == 0 && v < gpus)
    send_counts[v] =
        expert_offsets[(v + 1) * experts_per_gpu] - expert_offsets[v * experts_per_gpu];
}

}  // namespace

void launch_moe_pack_by_destination(const __nv_bfloat16* x, const int* sorted_rows, int rows,
                                    int top_k, int hidden, const int* expert_offsets, int experts,
                                    int gpus, __nv_bfloat16* send, int* send_counts,
                                    cudaStream_t stream) {
  if (rows <= 0 || top_k <= 0 || hidden <= 0 || hidden % 8 != 0 || hidden / 8 > 1024 || gpus <= 0 ||
      gpus > 1024 || experts % gpus != 0)
    throw std::invalid_argument(
        "moe_pack_by_destination: needs rows, top_k > 0, hidden a multiple of 8 up to 8192, and "
        "the experts divided evenly over the GPUs (rows " +
        std::to_string(rows) + ", hidden " + std::to_string(hidden) + ", experts " +
        std::to_string(experts) + ", gpus " + std::to_string(gpus) + ")");
  const int vectors = hidden / 8;
  const int threads = vectors < gpus ? gpus : vectors;  // block 0 needs one thread per GPU
  moe_pack_by_destination<<<rows, threads, 0, stream>>>(
      reinterpret_cast<const uint4*>(x), sorted_rows, top_k, vectors, expert_offsets,
      experts / gpus, gpus, reinterpret_cast<uint4*>(send), send_counts);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::ch04
