// FP8 wgmma (sm_90a only): m64nNk32 with e4m3 B from shared memory, A from shared memory or from
// registers (the RS form, below), fp32 accumulators.
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
#define AISP_FP8_WGMMA_PLACEHOLDERS_32                                                             \
  AISP_FP8_WGMMA_P0 ", " AISP_FP8_WGMMA_P8 ", " AISP_FP8_WGMMA_P16 ", " AISP_FP8_WGMMA_P24
#define AISP_FP8_WGMMA_PLACEHOLDERS_48                                                             \
  AISP_FP8_WGMMA_PLACEHOLDERS_32 ", " AISP_FP8_WGMMA_P32 ", " AISP_FP8_WGMMA_P40
#define AISP_FP8_WGMMA_PLACEHOLDERS_64                                                             \
  AISP_FP8_WGMMA_PLACEHOLDERS_48 ", " AISP_FP8_WGMMA_P48 ", " AISP_FP8_WGMMA_P56
#define AISP_FP8_WGMMA_PLACEHOLDERS_96                                                             \
  AISP_FP8_WGMMA_PLACEHOLDERS_64 ", " AISP_FP8_WGMMA_P64 ", " AISP_FP8_WGMMA_P72                   \
                                 ", " AISP_FP8_WGMMA_P80 ", " AISP_FP8_WGMMA_P88
#define AISP_FP8_WGMMA_D8(i)                                                                       \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),      \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define AISP_FP8_WGMMA_D32                                                                         \
  AISP_FP8_WGMMA_D8(0), AISP_FP8_WGMMA_D8(8), AISP_FP8_WGMMA_D8(16), AISP_FP8_WGMMA_D8(24)
#define AISP_FP8_WGMMA_D48 AISP_FP8_WGMMA_D32, AISP_FP8_WGMMA_D8(32), AISP_FP8_WGMMA_D8(40)
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

// The same with A from registers (the "RS" form): d (64×N fp32) = a · b + (accumulate ? d : 0),
// k = 32, A's 64×32 e4m3 slice held by the warpgroup in 4 registers per thread, B from shared
// memory through its descriptor. A's register layout (PTX ISA, wgmma register fragment of A for
// 8-bit types, k32): warp w holds rows 16w..16w+15; with g = lane / 4, q = lane % 4, register 0
// holds bytes (k) 4q..4q+3 of row g, register 1 the same of row g + 8, registers 2 and 3 bytes
// 16 + 4q..16 + 4q + 3 of rows g and g + 8. In bytes that is the m16n8k16 b16 A fragment, so
// ldmatrix.x4 (b16) loads it: matrices (rows 0-7, bytes 0-15), (rows 8-15, bytes 0-15),
// (rows 0-7, bytes 16-31), (rows 8-15, bytes 16-31). The hardware reads `a` asynchronously: the
// registers must not be written again before a wgmma_wait_group covering this wgmma, and a
// wgmma_fence must order their writes (ldmatrix) before it. N is 128 or 64 (chapter 19's 128×256
// tile in two n128 halves or four n64 quarters); another N needs its operand list.
template <int N>
__device__ __forceinline__ void wgmma_m64nNk32_e4m3_rs(float (&d)[N / 2],
                                                       const std::uint32_t (&a)[4],
                                                       std::uint64_t desc_b, bool accumulate) {
  static_assert(N == 64 || N == 128,
                "wgmma_m64nNk32_e4m3_rs: N must be 64 or 128 (add the operand list for others)");
#if AISP_WGMMA_AVAILABLE
  const auto scale_d = static_cast<std::uint32_t>(accumulate);
  if constexpr (N == 128) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %69, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {" AISP_FP8_WGMMA_PLACEHOLDERS_64
        "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n\t}"
        : AISP_FP8_WGMMA_D64
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
  } else {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %37, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {" AISP_FP8_WGMMA_PLACEHOLDERS_32
        "}, {%32, %33, %34, %35}, %36, p, 1, 1;\n\t}"
        : AISP_FP8_WGMMA_D32
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
  }
#else
  (void)d, (void)a, (void)desc_b, (void)accumulate;
  __trap();
#endif
}

}  // namespace aisp::common
