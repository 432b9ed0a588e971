// wgmma (warpgroup matrix multiply-accumulate, sm_90a only): the Hopper tensor-core instruction.
// Four consecutive warps (a warpgroup, the first warp's index a multiple of 4) issue it together;
// it reads A and B from shared memory through matrix descriptors and accumulates into registers,
// asynchronously: issue a batch, commit it as a group, and wait for the group before reading the
// accumulators or overwriting the shared memory it reads.
//
//   wgmma_fence();                       // order earlier register/shared writes before wgmma
//   for k16 ... wgmma_m64n256k16_bf16(d, desc_a + 2 * k16, desc_b + 2 * k16, true);
//   wgmma_commit_group();
//   wgmma_wait_group<0>();               // (or <1> to keep one group in flight)
//   wgmma_fence_accumulators(d);         // the compiler may not read d before the wait
//
// Shared-memory operands here are K-major (k contiguous) tiles written by TMA with 128-byte
// swizzle: rows of 64 bf16 (128 bytes), 8-row groups of 1024 bytes, the tile 1024-byte aligned.
// wgmma_descriptor_k_major_sw128 describes such a tile; the descriptor of the k16 slice j of a
// 64-wide tile is desc + 2 * j (32 bytes further, in 16-byte units: the hardware applies the
// swizzle to the computed addresses), and rows 64·i.. start 64·128 bytes further (desc + 512·i).
//
// Accumulator layout of m64nNk16 (fp32, N/2 registers per thread): warp w of the warpgroup holds
// rows 16w..16w+15; with lane l, g = l / 4, q = l % 4, register 4j + e holds
// row 16w + g + 8·(e / 2), column 8j + 2q + (e % 2).
//
// On any other architecture (sm_100a has tcgen05 instead) these compile to a trap: kernels using
// them guard their bodies with AISP_WGMMA_AVAILABLE and their variants declare Feature::wgmma.
#pragma once

#include <cstdint>

#include "shared_address.cuh"

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define AISP_WGMMA_AVAILABLE 1
#else
#define AISP_WGMMA_AVAILABLE 0
#endif

namespace aisp::common {

// Descriptor of a K-major bf16 tile in shared memory written with 128-byte swizzle: start address
// (bits 0-13, in 16-byte units), leading-dimension offset 16 bytes (bits 16-29; unused by the
// hardware for swizzled K-major tiles whose k extent fits one swizzle row), stride between 8-row
// groups 1024 bytes (bits 32-45), swizzle mode 1 = 128B (bits 62-63).
__device__ __forceinline__ std::uint64_t wgmma_descriptor_k_major_sw128(const void* tile) {
  const std::uint64_t address = shared_address(tile);
  return ((address & 0x3FFFF) >> 4) | (std::uint64_t{16 >> 4} << 16) |
         (std::uint64_t{1024 >> 4} << 32) | (std::uint64_t{1} << 62);
}

// Orders this warpgroup's earlier accesses to the accumulator registers and shared memory before
// the wgmma that follow. Once before each batch.
__device__ __forceinline__ void wgmma_fence() {
#if AISP_WGMMA_AVAILABLE
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
  __trap();
#endif
}

// Closes the batch of wgmma issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit_group() {
#if AISP_WGMMA_AVAILABLE
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
  __trap();
#endif
}

// Waits until at most `Pending` groups of this warpgroup are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait_group() {
#if AISP_WGMMA_AVAILABLE
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
#else
  __trap();
#endif
}

// A compiler-only fence on every accumulator register: the wgmma asm statements write them as far
// as the compiler knows, but the hardware writes them until the wait; this keeps the compiler from
// moving reads (or writes) of the accumulators across the wait or the fence.
template <int N>
__device__ __forceinline__ void wgmma_fence_accumulators(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

// d (64×64 fp32, 32 registers per thread) = a · b + (accumulate ? d : 0), k = 16.
__device__ __forceinline__ void wgmma_m64n64k16_bf16(float (&d)[32], std::uint64_t desc_a,
                                                     std::uint64_t desc_b, bool accumulate) {
#if AISP_WGMMA_AVAILABLE
  asm volatile("{\n\t.reg .pred p;\n\t"
               "setp.ne.b32 p, %34, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, "
               "%8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, "
               "%24, %25, %26, %27, %28, %29, %30, %31"
               "}, %32, %33, p, 1, 1, 0, 0;\n\t}"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                 "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
                 "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
                 "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
                 "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
                 "+f"(d[31])
               : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)));
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
  __trap();
#endif
}

// d (64×128 fp32, 64 registers per thread) = a · b + (accumulate ? d : 0), k = 16.
__device__ __forceinline__ void wgmma_m64n128k16_bf16(float (&d)[64], std::uint64_t desc_a,
                                                      std::uint64_t desc_b, bool accumulate) {
#if AISP_WGMMA_AVAILABLE
  asm volatile("{\n\t.reg .pred p;\n\t"
               "setp.ne.b32 p, %66, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, "
               "%8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, "
               "%24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, "
               "%40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, "
               "%56, %57, %58, %59, %60, %61, %62, %63"
               "}, %64, %65, p, 1, 1, 0, 0;\n\t}"
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

// d (64×256 fp32, 128 registers per thread) = a · b + (accumulate ? d : 0), k = 16.
__device__ __forceinline__ void wgmma_m64n256k16_bf16(float (&d)[128], std::uint64_t desc_a,
                                                      std::uint64_t desc_b, bool accumulate) {
#if AISP_WGMMA_AVAILABLE
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
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
      "%88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, "
      "%104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, "
      "%120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 0;\n\t}"
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
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<std::uint32_t>(accumulate)));
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
  __trap();
#endif
}

}  // namespace aisp::common
