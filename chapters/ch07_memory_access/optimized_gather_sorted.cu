// Optimized: gather in row order, from an index list sorted once. What changed vs the baseline:
// the index list comes sorted, with each index's position kept: sorted_idx[j] = idx[perm[j]],
// ascending. Warp j sums row sorted_idx[j] and writes it to out[perm[j]], so out is the same
// array, element for element, as the baseline's. Why it is faster: the warps in flight now ask
// for neighbouring rows, so the table is read as one ascending sweep (each 1 KiB row a contiguous
// part of the stream), and the ~4 requests for one row are adjacent: the first brings it from
// HBM, the others find it in L1 or L2. HBM reads drop from ~4 GiB to ~1 GiB. What it costs in
// run(): the writes to out are scattered (4-byte stores at random places in 16 MiB, absorbed by
// L2 partial-sector writes) and two index arrays are read instead of one (32 MiB, not 16).
// The sort is not in the timed region: setup does it (a CUB radix sort of 2^22 (row, position)
// pairs on the 20 row bits), and sorted_idx and perm are declared inputs, the index list in the
// form this variant takes it — as a program that reuses one index list for many gathers would
// keep it (a fixed sparse pattern, an embedding lookup replayed over steps). Declared as inputs,
// they are re-derived with the rest of the inputs when verification changes the seed, and
// checked unchanged by run(). optimized_gather_sorted_with_sort sorts inside run() instead: the
// difference between the two is the sort's cost, measured.
// Bytes: the table once + indices + output = 1 GiB + 32 MiB at the least; FLOPs: 255 adds per row,
// 1.07 G. Ceiling: HBM bandwidth.
#include <cub/device/device_radix_sort.cuh>

#include "gather_sorted_common.cuh"

namespace aisp::ch07 {
namespace {

__global__ void iota_positions(int* __restrict__ positions, int count) {
  const int i =
      static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x);
  if (i < count)
    positions[i] = i;
}

__global__ void __launch_bounds__(GatherSortedProblem::kWarpsPerBlock * 32)
    gather_row_sums_presorted(const float* __restrict__ table, const int* __restrict__ sorted_idx,
                              const int* __restrict__ perm, float* __restrict__ out) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int j = static_cast<int>(blockIdx.x) * GatherSortedProblem::kWarpsPerBlock +
                static_cast<int>(threadIdx.x) / 32;  // grid covers kIndices exactly
  const int row = sorted_idx[j];
  const int position = perm[j];
  const float s =
      warp_row_sum(table + static_cast<std::size_t>(row) * GatherSortedProblem::kRowFloats, lane);
  if (lane == 0)
    out[position] = s;
}

}  // namespace

struct GatherPresorted : GatherSortedProblem {
  void setup(aisp::Context& ctx) override {
    GatherSortedProblem::setup(ctx);
    using aisp::DType, aisp::Role;
    sorted_idx_ = ctx.alloc("sorted_idx", DType::i32, kIndices, Role::input);
    perm_ = ctx.alloc("perm", DType::i32, kIndices, Role::input);
    const aisp::Tensor positions = ctx.alloc("positions", DType::i32, kIndices, Role::scratch);
    iota_positions<<<(kIndices + 255) / 256, 256, 0, ctx.stream()>>>(positions.as<int>(), kIndices);
    AISP_CHECK_LAUNCH();

    // Keys are row numbers < 2^20: only bits 0..19 take part (3 passes of 8-bit digits).
    std::size_t temp_bytes = 0;
    AISP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, temp_bytes, idx(), sorted_idx_.as<int>(), positions.as<const int>(),
        perm_.as<int>(), kIndices, 0, kRowBits, ctx.stream()));
    const aisp::Tensor temp = ctx.alloc("sort_temp", DType::u8, temp_bytes, Role::scratch);
    AISP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        temp.data(), temp_bytes, idx(), sorted_idx_.as<int>(), positions.as<const int>(),
        perm_.as<int>(), kIndices, 0, kRowBits, ctx.stream()));
    AISP_CHECK_LAUNCH();
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  void run(aisp::Context& ctx) override {
    gather_row_sums_presorted<<<grid(), block(), 0, ctx.stream()>>>(
        table(), sorted_idx_.as<const int>(), perm_.as<const int>(), out());
    AISP_CHECK_LAUNCH();
  }

 private:
  aisp::Tensor sorted_idx_, perm_;
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::GatherPresorted)
