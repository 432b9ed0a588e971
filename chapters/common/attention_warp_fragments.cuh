// Warp-level fragment moves the attention kernels need beyond mma_sync.cuh (which has cp.async,
// ldmatrix and mma.sync m16n8k16): the transposing ldmatrix, for the V operand of P·V, and
// movmatrix, a register-only 8×8 transpose across the warp, for V read straight from global
// memory in the decode kernels. sm_75 and later, Hopper and Blackwell alike.
//
// P·V needs V as the B operand of m16n8k16 (k = key, n = head dim), whose fragment holds two
// consecutive keys of one dim per register; V is stored key-major (dims contiguous), so its
// 8×8 blocks must be transposed on the way: ldmatrix .trans does it from shared memory,
// movmatrix .trans from registers. Lane l = 4g + q of an 8×8 b16 matrix held one row per group
// (register = row g, cols 2q..2q+1) receives, after .trans, rows 2q..2q+1 of column g.
#pragma once

#include <cstdint>

#include "shared_address.cuh"

namespace aisp::common {

// Four 8×8 b16 matrices from shared memory, each transposed; lane l gives the address of row
// l % 8 of matrix l / 8 (as for ldmatrix_x4) and receives in register i the pair (rows 2(l % 4),
// 2(l % 4) + 1; column l / 4) of stored matrix i.
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
}

// The transpose of an 8×8 b16 matrix held in registers: lane 4g + q holds (row g, cols 2q, 2q+1)
// and receives (rows 2q, 2q+1; col g) packed the same way.
__device__ __forceinline__ std::uint32_t movmatrix_trans(std::uint32_t x) {
  std::uint32_t y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x));
  return y;
}

// 2^x on the special-function unit (ex2.approx, flush-to-zero); 2^-inf = 0. The flash kernels
// keep scores in log2 units (pre-multiplied by log2 e), as FlashAttention does.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace aisp::common
