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

namespace aisp::common {

// d (64×128 fp32, 64 registers per thread) = a · b + (accumulate ? d : 0), k = 32, e4m3 × e4m3.
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[64], std::uint64_t desc_a,
                                                      std::uint64_t desc_b, bool accumulate) {
#if AISP_WGMMA_AVAILABLE
  asm volatile("{\n\t.reg .pred p;\n\t"
               "setp.ne.b32 p, %66, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, "
               "%8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, "
               "%24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, "
               "%40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, "
               "%56, %57, %58, %59, %60, %61, %62, %63"
               "}, %64, %65, p, 1, 1;\n\t}"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                 "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
                 "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
                 "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
                 "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
                 "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                 "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
                 "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
                 "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
                 "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
                 "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)));
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
  __trap();
#endif
}

// d (64×192 fp32, 96 registers per thread) = a · b + (accumulate ? d : 0), k = 32, e4m3 × e4m3.
// The widest N whose accumulator and one promotion temporary (2 × 96 registers) fit beside each
// other under setmaxnreg 232 (chapter 19's 128×192-tile block-scaled GEMM).
__device__ __forceinline__ void wgmma_m64n192k32_e4m3(float (&d)[96], std::uint64_t desc_a,
                                                      std::uint64_t desc_b, bool accumulate) {
#if AISP_WGMMA_AVAILABLE
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %98, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, "
      "%8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, "
      "%24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, "
      "%40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, "
      "%56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, "
      "%72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, "
      "%88, %89, %90, %91, %92, %93, %94, %95"
      "}, %96, %97, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)));
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
  __trap();
#endif
}

}  // namespace aisp::common
