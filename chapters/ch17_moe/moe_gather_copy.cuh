// The copies behind a gathered GEMM operand (sm_80+ instructions; the kernels using them are
// sm_90a): on Hopper, TMA copies boxes of a tensor, not a list of rows, so the rows of a tile whose
// tokens were routed to one expert are fetched one 16-byte chunk per thread with cp.async, and an
// mbarrier learns when they have landed:
//
//   cp_async_16_zfill(dst, src, row_valid ? 16 : 0);   // chunk by chunk (zeros past the group)
//   cp_async_mbarrier_arrive_noinc(&full[s]);          // one arrival once this thread's copies
//   land
//
// With `.noinc` the arrival is not pre-counted: the barrier must be initialized with one arrival
// per copying thread (plus any others, e.g. the thread that announces a TMA's bytes).
//
// cp.async writes shared memory through the generic proxy, and wgmma reads it through the async
// proxy: a consumer that waited on the barrier runs fence_proxy_async_shared() (common/tma.cuh)
// before its wgmma, so the landed bytes are ordered before the tensor cores read them.
#pragma once

#include <cstdint>

#include "../common/shared_address.cuh"

namespace aisp::ch17 {

// 16 bytes global -> shared through L2 (.cg); src_bytes 16 copies, 0 writes 16 zero bytes (and
// reads nothing from src, which must still be a valid address).
__device__ __forceinline__ void cp_async_16_zfill(void* dst_shared, const void* src_global,
                                                  std::uint32_t src_bytes) {
  asm volatile(
      "cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(common::shared_address(dst_shared)),
      "l"(src_global), "r"(src_bytes)
      : "memory");
}

// An arrival on `bar` once every cp.async this thread issued so far has completed; not counted
// in advance (.noinc): the barrier's expected arrivals must include it.
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc(std::uint64_t* bar) {
  asm volatile(
      "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(common::shared_address(bar))
      : "memory");
}

// Barrier 1 over the 128 threads of warpgroup 0 (the producers), so they can share a table in
// shared memory without stopping the consumers (barrier 0 is __syncthreads').
__device__ __forceinline__ void producer_warpgroup_sync() {
  asm volatile("bar.sync 1, 128;" ::: "memory");
}

}  // namespace aisp::ch17
