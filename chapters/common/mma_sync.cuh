// Warp-level tensor-core building blocks (sm_80 and later, so Hopper and Blackwell alike):
// cp.async 16-byte copies global -> shared, ldmatrix, and mma.sync m16n8k16 with BF16 or FP16
// inputs and FP32 accumulators.
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16"), lane = threadIdx.x % 32,
// g = lane / 4, q = lane % 4:
//   A (16×16, row-major): a[0] = rows g, cols 2q..2q+1; a[1] = row g+8, same cols;
//                          a[2] = row g, cols 8+2q..; a[3] = row g+8, cols 8+2q..
//   B (16×8, "col": stored n-major, k contiguous): b[0] = k 2q..2q+1 of column g; b[1] = k 8+2q..
//   C/D (16×8 fp32): d[0..1] = row g, cols 2q, 2q+1; d[2..3] = row g+8, same cols.
// ldmatrix.x4 loads four 8×8 b16 matrices; lane l gives the address of row l % 8 of matrix
// l / 8, and receives in register i the pair (row l / 4, cols 2(l % 4), +1) of matrix i. With A
// stored row-major (k contiguous) and B stored n-major (k contiguous), plain (non-transposed)
// ldmatrix yields exactly the A and B fragments above.
#pragma once

#include <cstdint>

#include "shared_address.cuh"

namespace aisp::common {

// 16 bytes global -> shared through L2 only (.cg), asynchronously; both addresses 16-byte aligned.
__device__ __forceinline__ void cp_async_16(void* dst_shared, const void* src_global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(dst_shared)),
               "l"(src_global)
               : "memory");
}

// Closes the group of cp.async issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

// Waits until at most `Pending` committed groups are still in flight (this thread's copies).
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// Four 8×8 b16 matrices from shared memory; `row_address` is this lane's row (see above).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
}

// d += a · b for one 16×8×16 tile: BF16 a and b, FP32 d (layouts above).
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const std::uint32_t (&a)[4],
                                                  std::uint32_t b0, std::uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d += a · b for one 16×8×16 tile: FP16 a and b, FP32 d (the same layouts).
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[4], const std::uint32_t (&a)[4],
                                                 std::uint32_t b0, std::uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace aisp::common
