// mbarrier: the shared-memory barrier object (sm_90 and later) that pipelines built on the copy
// engine synchronize on. A phase completes when its expected arrivals have arrived and the bytes
// announced with expect_tx have landed (copies count them down with complete_tx). Waiting is on a
// phase's parity: a freshly initialized barrier is in phase 0, so a wait for parity 1 returns at
// once (the phase "before" it counts as complete) — the usual start for a producer waiting on an
// empty slot.
//
// Typical ring of S slots, iteration i uses slot i % S with parity (i / S) & 1:
//   producer: wait(empty[s], parity ^ 1); arrive_expect_tx(full[s], bytes); start copies on full[s]
//   consumer: wait(full[s], parity); use the slot; arrive(empty[s])
//
// Initialize with one thread, then mbarrier_init_fence() and a block (or cluster) barrier before
// any other thread or the copy engine touches the barrier.
#pragma once

#include <cstdint>

#include "shared_address.cuh"

namespace aisp::common {

__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals)
               : "memory");
}

// Makes initialized barriers visible to the copy engine and to the other CTAs of a cluster.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival (release: this thread's earlier memory accesses happen before the phase completes).
// Every operation here also takes the barrier as its 32-bit shared-memory address
// (shared_address(bar)), for main loops that compute their barriers' addresses once instead of
// converting a generic pointer on every use.
__device__ __forceinline__ void mbarrier_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  mbarrier_arrive(shared_address(bar));
}

// One arrival, and `bytes` more to expect from copies completing on this barrier in this phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
}

// One arrival on the barrier at the same shared-memory offset in CTA `cta_rank` of this cluster
// (this CTA's own rank included). Release semantics at CTA scope, the instruction's default —
// enough to hand a slot back once wgmma.wait_group has retired the reads of it. A `.cluster`-scope
// release would put a full memory barrier before every arrival: in the 2×1-cluster GEMM of
// chapter 10 that made `membar` the top stall reason (ncu) and the kernel ran at 454 instead of
// 758 TFLOP/s at 8192³ (H200, scripts/probes/gemm_ladder_probe.cu).
__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint64_t* bar,
                                                        std::uint32_t cta_rank) {
  asm volatile("{\n\t.reg .b32 remote;\n\t"
               "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
               "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(shared_address(bar)),
               "r"(cta_rank)
               : "memory");
}

// True once the phase with this parity has completed (acquire: what the phase covered, copied
// bytes included, is visible to this thread). May return false spuriously; loop on it.
__device__ __forceinline__ bool mbarrier_try_wait_parity(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  asm volatile("{\n\t.reg .pred complete;\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, complete;\n\t}"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done != 0;
}

__device__ __forceinline__ bool mbarrier_try_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  return mbarrier_try_wait_parity(shared_address(bar), parity);
}

// Returns once the phase with this parity has completed. A phase that never completes (a copy
// that was never issued, a miscounted arrival) hangs here: run new pipelines under a timeout.
__device__ __forceinline__ void mbarrier_wait_parity(std::uint32_t bar, std::uint32_t parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

__device__ __forceinline__ void mbarrier_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  mbarrier_wait_parity(shared_address(bar), parity);
}

}  // namespace aisp::common
