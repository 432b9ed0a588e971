// Cache-blocked transpose split across host threads. Changed from optimized_host_transpose: the
// same tile loop, with the tile rows divided into ctx.host_threads() contiguous bands, one
// std::thread each. One core cannot keep enough cache misses in flight to saturate DRAM (its
// line fill buffers cap the misses it can have outstanding), so more cores issuing misses at
// once raise the achieved bandwidth until the memory controllers, not the cores, are the limit.
// Threads are started and joined inside run(), so their start-up cost (tens of µs) is timed.
//
// Bytes: 2·n²·4. Ceiling: host memory bandwidth.
#include <algorithm>
#include <thread>
#include <vector>

#include "host_transpose_common.hpp"

namespace aisp::ch03 {

struct HostTransposeBlockedThreaded : HostTransposeProblem {
  static constexpr std::size_t kBlock = 32;  // as in optimized_host_transpose

  void run(Context& ctx) override {
    const std::size_t size = n();
    const std::size_t block_rows = (size + kBlock - 1) / kBlock;
    const std::size_t threads =
        std::clamp<std::size_t>(static_cast<std::size_t>(std::max(ctx.host_threads(), 1)), 1,
                                std::max<std::size_t>(block_rows, 1));
    // jthread joins on destruction, so no thread outlives run(), even if starting one throws.
    std::vector<std::jthread> workers;
    workers.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t) {
      const std::size_t first = block_rows * t / threads;
      const std::size_t last = block_rows * (t + 1) / threads;
      workers.emplace_back([this, first, last] { transpose_block_rows(first, last); });
    }
  }

 private:
  // Tile rows [first, last): rows [first·kBlock, last·kBlock) of the input, clipped to n.
  void transpose_block_rows(std::size_t first, std::size_t last) const {
    const float* src = in();
    float* dst = out();
    const std::size_t size = n();
    for (std::size_t ib = first * kBlock; ib < std::min(last * kBlock, size); ib += kBlock) {
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

AISP_VARIANT(aisp::ch03::HostTransposeBlockedThreaded)
