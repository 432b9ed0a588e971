// What the attention kernels need from wgmma beyond wgmma.cuh (which has the shared-memory-A,
// K-major forms of the GEMMs): the second product of attention, O += P·V, takes
//   A = P from registers (the softmax just produced it there; the fragment layout is mma.sync's
//       m16n8k16 A layout, warp w of the warpgroup holding rows 16w..16w+15), and
//   B = V from shared memory as stored, key-major with the head dim contiguous: for this product
//       (k = key, n = head dim) that is "N-major", so the instruction transposes B (imm-trans-b).
// V tiles arrive by TMA with 128-byte swizzle, in panels of 64 dims: rows (keys) 128 bytes apart
// within a panel, panels rows·128 bytes apart. As an N-major SW128 operand (the canonical layout
// Swizzle<3,4,3> o ((8,8,m),(8,k)) : ((1,8,LBO),(64,SBO)) in elements): 64 dims contiguous per
// row, the next 64 dims one panel further (leading byte offset = panel stride), the next 8 keys
// 1024 bytes further (stride byte offset). The k16 slice j starts 16 rows = 2048 bytes further.
// sm_90a only, like wgmma.cuh: elsewhere these trap.
#pragma once

#include <cstdint>

#include "shared_address.cuh"
#include "wgmma.cuh"

namespace aisp::common {

// Descriptor of an N-major (MN-major) BF16 operand tile written with 128-byte swizzle, starting at
// `tile` (1024-byte aligned), its 64-element panels `panel_stride_bytes` apart.
__device__ __forceinline__ std::uint64_t
wgmma_descriptor_mn_major_sw128(const void* tile, std::uint32_t panel_stride_bytes) {
  const std::uint64_t address = shared_address(tile);
  return ((address & 0x3FFFF) >> 4) | (std::uint64_t{(panel_stride_bytes >> 4) & 0x3FFF} << 16) |
         (std::uint64_t{1024 >> 4} << 32) | (std::uint64_t{1} << 62);
}

// A compiler-only fence on A-fragment registers read by an asynchronous wgmma: keeps them live and
// unchanged (the compiler may not reuse their registers) until this point, which must follow the
// wgmma_wait_group that retires the instruction reading them.
template <int N>
__device__ __forceinline__ void wgmma_fence_fragments(std::uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+r"(a[i])::"memory");
}

// d (64×64 fp32, 32 registers) += a (64×16 BF16 in registers) · b (16×64, N-major in shared
// memory), k = 16.
__device__ __forceinline__ void
wgmma_m64n64k16_bf16_rs_tn(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t desc_b) {
#if AISP_WGMMA_AVAILABLE
  asm volatile("{\n\t.reg .pred p;\n\t"
               "setp.ne.b32 p, %37, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, "
               "%8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, "
               "%24, %25, %26, %27, %28, %29, %30, %31"
               "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n\t}"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                 "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
                 "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
                 "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
                 "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
                 "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
#else
  (void)d, (void)a, (void)desc_b;
  __trap();
#endif
}

// d (64×128 fp32, 64 registers) += a (64×16 BF16 in registers) · b (16×128, N-major in shared
// memory), k = 16.
__device__ __forceinline__ void
wgmma_m64n128k16_bf16_rs_tn(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t desc_b) {
#if AISP_WGMMA_AVAILABLE
  asm volatile("{\n\t.reg .pred p;\n\t"
               "setp.ne.b32 p, %69, 0;\n\t"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
               "%0, %1, %2, %3, %4, %5, %6, %7, "
               "%8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, "
               "%24, %25, %26, %27, %28, %29, %30, %31, "
               "%32, %33, %34, %35, %36, %37, %38, %39, "
               "%40, %41, %42, %43, %44, %45, %46, %47, "
               "%48, %49, %50, %51, %52, %53, %54, %55, "
               "%56, %57, %58, %59, %60, %61, %62, %63"
               "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n\t}"
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
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
#else
  (void)d, (void)a, (void)desc_b;
  __trap();
#endif
}

// d (64×72 fp32, 36 registers) += a (64×16 BF16 in registers) · b (16×72, N-major in shared
// memory), k = 16: the head-dim-64 P·V with 8 more columns, which the attention kernel points at a
// block of ones so that columns 64..71 of O accumulate the row sums of P (the descriptor's leading
// byte offset is the distance from the V rows to the ones: the second 64-column panel).
__device__ __forceinline__ void
wgmma_m64n72k16_bf16_rs_tn(float (&d)[36], const std::uint32_t (&a)[4], std::uint64_t desc_b) {
#if AISP_WGMMA_AVAILABLE
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %41, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n72k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35"
      "}, {%36, %37, %38, %39}, %40, p, 1, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
#else
  (void)d, (void)a, (void)desc_b;
  __trap();
#endif
}

}  // namespace aisp::common
