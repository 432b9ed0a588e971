// FP8 wgmma (sm_90a only): m64nNk32 with e4m3 A and B from shared memory, fp32 accumulators.
// The companion of wgmma.cuh (its fences, commit/wait and descriptor helpers apply unchanged):
// an e4m3 row of 128 values is 128 bytes, exactly one 128-byte swizzle row, so a K-major e4m3
// tile of 128 k written by TMA with 128-byte swizzle has the same byte layout as wgmma.cuh's
// bf16 tile of 64 k, and wgmma_descriptor_k_major_sw128 describes it. The k32 slice j of such a
// tile starts 32 bytes further: desc + 2 * j. FP8 wgmma has no transpose immediates: both
// operands must be K-major (which is why FP8 GEMMs on Hopper are "TN").
//
// Accumulator layout: as wgmma.cuh's m64nNk16 (register 4j + e of lane l in warp w holds row
// 16w + l/4 + 8·(e/2), column 8j + 2·(l%4) + e%2).
//
// The tensor cores sum the k32 products of e4m3 values in a reduced-precision accumulator
// before adding them into the fp32 registers; DeepSeek-V3's report measured the error of long K
// that way and promoted partial sums to fp32 every 128 k. The block-scaled GEMM in chapter 19
// does the same, which its 1x128 scales require anyway.
#pragma once

#include <cstdint>

#include "wgmma.cuh"

// The operand lists of the inline PTX below: accumulator placeholders %0..%(N/2 - 1) in rows of
// eight, and the matching "+f" operands d[0..N/2 - 1].
#define AISP_FP8_WGMMA_P0 "%0, %1, %2, %3, %4, %5, %6, %7"
#define AISP_FP8_WGMMA_P8 "%8, %9, %10, %11, %12, %13, %14, %15"
#define AISP_FP8_WGMMA_P16 "%16, %17, %18, %19, %20, %21, %22, %23"
#define AISP_FP8_WGMMA_P24 "%24, %25, %26, %27, %28, %29, %30, %31"
#define AISP_FP8_WGMMA_P32 "%32, %33, %34, %35, %36, %37, %38, %39"
#define AISP_FP8_WGMMA_P40 "%40, %41, %42, %43, %44, %45, %46, %47"
#define AISP_FP8_WGMMA_P48 "%48, %49, %50, %51, %52, %53, %54, %55"
#define AISP_FP8_WGMMA_P56 "%56, %57, %58, %59, %60, %61, %62, %63"
#define AISP_FP8_WGMMA_P64 "%64, %65, %66, %67, %68, %69, %70, %71"
#define AISP_FP8_WGMMA_P72 "%72, %73, %74, %75, %76, %77, %78, %79"
#define AISP_FP8_WGMMA_P80 "%80, %81, %82, %83, %84, %85, %86, %87"
#define AISP_FP8_WGMMA_P88 "%88, %89, %90, %91, %92, %93, %94, %95"
#define AISP_FP8_WGMMA_PLACEHOLDERS_48                                                             \
  AISP_FP8_WGMMA_P0 ", " AISP_FP8_WGMMA_P8 ", " AISP_FP8_WGMMA_P16 ", " AISP_FP8_WGMMA_P24         \
                    ", " AISP_FP8_WGMMA_P32 ", " AISP_FP8_WGMMA_P40
#define AISP_FP8_WGMMA_PLACEHOLDERS_64                                                             \
  AISP_FP8_WGMMA_PLACEHOLDERS_48 ", " AISP_FP8_WGMMA_P48 ", " AISP_FP8_WGMMA_P56
#define AISP_FP8_WGMMA_PLACEHOLDERS_96                                                             \
  AISP_FP8_WGMMA_PLACEHOLDERS_64 ", " AISP_FP8_WGMMA_P64 ", " AISP_FP8_WGMMA_P72                   \
                                 ", " AISP_FP8_WGMMA_P80 ", " AISP_FP8_WGMMA_P88
#define AISP_FP8_WGMMA_D8(i)                                                                       \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),      \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define AISP_FP8_WGMMA_D48                                                                         \
  AISP_FP8_WGMMA_D8(0), AISP_FP8_WGMMA_D8(8), AISP_FP8_WGMMA_D8(16), AISP_FP8_WGMMA_D8(24),        \
      AISP_FP8_WGMMA_D8(32), AISP_FP8_WGMMA_D8(40)
#define AISP_FP8_WGMMA_D64 AISP_FP8_WGMMA_D48, AISP_FP8_WGMMA_D8(48), AISP_FP8_WGMMA_D8(56)
#define AISP_FP8_WGMMA_D96                                                                         \
  AISP_FP8_WGMMA_D64, AISP_FP8_WGMMA_D8(64), AISP_FP8_WGMMA_D8(72), AISP_FP8_WGMMA_D8(80),         \
      AISP_FP8_WGMMA_D8(88)

namespace aisp::common {

// d (64×N fp32, N/2 registers per thread) = a · b + (accumulate ? d : 0), k = 32, e4m3 × e4m3.
// N is 128 or 192 (chapter 19's block-scaled GEMM; 192 is the widest whose accumulator and one
// promotion temporary, 2 × 96 registers, fit under setmaxnreg 232). Another N needs its operand
// list added below (the placeholder and operand macros come in rows of eight).
template <int N>
__device__ __forceinline__ void wgmma_m64nNk32_e4m3(float (&d)[N / 2], std::uint64_t desc_a,
                                                    std::uint64_t desc_b, bool accumulate) {
  static_assert(N == 128 || N == 192,
                "wgmma_m64nNk32_e4m3: N must be 128 or 192 (add the operand list for others)");
#if AISP_WGMMA_AVAILABLE
  const auto scale_d = static_cast<std::uint32_t>(accumulate);
  if constexpr (N == 128) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {" AISP_FP8_WGMMA_PLACEHOLDERS_64
        "}, %64, %65, p, 1, 1;\n\t}"
        : AISP_FP8_WGMMA_D64
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %98, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 {" AISP_FP8_WGMMA_PLACEHOLDERS_96
        "}, %96, %97, p, 1, 1;\n\t}"
        : AISP_FP8_WGMMA_D96
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
  __trap();
#endif
}

}  // namespace aisp::common
