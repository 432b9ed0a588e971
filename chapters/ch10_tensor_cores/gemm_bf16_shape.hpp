// The shape check every rung's prepare function makes: the kernels have no tail handling, so M,
// N and K must be whole multiples of the rung's block tile. A mismatch is refused in setup with
// the sizes and the tile, never run with a wrong or partial result.
#pragma once

#include <stdexcept>
#include <string>

#include "gemm_bf16_kernels.cuh"

namespace aisp::ch10 {

inline void require_whole_tiles(const GemmBf16Args& args, int block_m, int block_n, int block_k,
                                const char* rung) {
  if (args.a == nullptr || args.b == nullptr || args.c == nullptr)
    throw std::invalid_argument(std::string("gemm_bf16 ") + rung + ": null A, B or C");
  if (args.m <= 0 || args.n <= 0 || args.k <= 0 || args.m % block_m != 0 || args.n % block_n != 0 ||
      args.k % block_k != 0)
    throw std::invalid_argument(
        std::string("gemm_bf16 ") + rung + ": M=" + std::to_string(args.m) + " N=" +
        std::to_string(args.n) + " K=" + std::to_string(args.k) + " is not a whole number of " +
        std::to_string(block_m) + "x" + std::to_string(block_n) + "x" + std::to_string(block_k) +
        " tiles (this kernel has no tail handling): pad the problem or pick another rung");
}

}  // namespace aisp::ch10
