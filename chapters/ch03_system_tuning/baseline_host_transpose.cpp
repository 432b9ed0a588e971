// Naive transpose: walk the input row by row and scatter each element into its column of the
// output. Reads are sequential, but consecutive writes are n·4 = 16 KiB apart: every store goes
// to a different cache line on a different 4 KiB page. One input row scatters over 4096 pages,
// more than the TLBs map, so nearly every store misses the TLB. And since the stride is a
// multiple of the page size, all those lines share one page offset, which confines them to a
// single L1 set and 1/64 of L2's sets: each line is evicted long before the next element of it
// is written (one input row later), so DRAM moves a whole 64-byte line, read for ownership and
// later written back, for every 4-byte store.
//
// Bytes: 2·n²·4. Ceiling: host memory bandwidth.
#include "host_transpose_common.hpp"

namespace aisp::ch03 {

struct HostTransposeNaive : HostTransposeProblem {
  void run(Context& /*ctx*/) override {
    const float* src = in();
    float* dst = out();
    const std::size_t size = n();
    for (std::size_t i = 0; i < size; ++i) {
      for (std::size_t j = 0; j < size; ++j) {
        dst[j * size + i] = src[i * size + j];
      }
    }
  }
};

}  // namespace aisp::ch03

AISP_VARIANT(aisp::ch03::HostTransposeNaive)
