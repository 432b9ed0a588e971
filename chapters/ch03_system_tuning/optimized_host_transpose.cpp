// Cache-blocked transpose. Changed from the baseline: the matrix is walked in kBlock×kBlock
// tiles, and each tile is transposed completely before moving on. A tile is 32 row segments of
// 128 bytes (two cache lines) on each side, 8 KiB in all, on at most 64 pages: it stays in the
// core's caches and TLB while it is processed (in L2 rather than L1: at a 16 KiB stride its 32
// output rows share one page offset and collide in the same L1 sets). So every line fetched from
// DRAM is used in full, every written line is filled completely before it is evicted, and the TLB
// misses once per 32 stores instead of once per store. DRAM traffic falls from about a line per
// element on the write side to about the bytes the problem must move. Edge tiles are clipped,
// so any n works.
//
// Bytes: 2·n²·4. Ceiling: host memory bandwidth.
#include <algorithm>

#include "host_transpose_common.hpp"

namespace aisp::ch03 {

struct HostTransposeBlocked : HostTransposeProblem {
  // 32 floats = 128 bytes = two whole cache lines per tile row, on both sides. 16 and 64 are
  // reasonable too; much smaller tiles use partial lines, much larger ones outgrow L2 and the TLB.
  static constexpr std::size_t kBlock = 32;

  void run(Context& /*ctx*/) override {
    const float* src = in();
    float* dst = out();
    const std::size_t size = n();
    for (std::size_t ib = 0; ib < size; ib += kBlock) {
      const std::size_t i_end = std::min(ib + kBlock, size);
      for (std::size_t jb = 0; jb < size; jb += kBlock) {
        const std::size_t j_end = std::min(jb + kBlock, size);
        for (std::size_t i = ib; i < i_end; ++i) {
          for (std::size_t j = jb; j < j_end; ++j) {
            dst[j * size + i] = src[i * size + j];
          }
        }
      }
    }
  }
};

}  // namespace aisp::ch03

AISP_VARIANT(aisp::ch03::HostTransposeBlocked)
