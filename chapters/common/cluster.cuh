// Thread-block clusters (sm_90 and later): CTAs launched together on one GPC that can read each
// other's shared memory, arrive on each other's mbarriers (mbarrier_arrive_cluster) and receive
// one TMA copy together (tma_load_2d_multicast). Launch with __cluster_dims__ or
// cudaLaunchKernelEx's cluster attribute, and declare Feature::thread_block_clusters.
//
// A CTA must not exit while a peer may still write into its shared memory or arrive on its
// barriers, and must not signal a peer before the peer has initialized its barriers: bracket the
// work with cluster_sync() after barrier initialization and before exit.
#pragma once

#include <cstdint>

namespace aisp::common {

// This CTA's rank within its cluster, 0 .. cluster size - 1.
__device__ __forceinline__ std::uint32_t cluster_cta_rank() {
  std::uint32_t rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// The cluster's index in the grid (x).
__device__ __forceinline__ std::uint32_t cluster_index_x() {
  std::uint32_t index = 0;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(index));
  return index;
}

// Number of clusters in the grid (x).
__device__ __forceinline__ std::uint32_t cluster_count_x() {
  std::uint32_t count = 0;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(count));
  return count;
}

// Every thread of every CTA in the cluster arrives, then waits for all the others: release and
// acquire at cluster scope (what each CTA wrote before is visible to the others after). The
// non-.aligned form, so threads of a warp may reach it at different times (a producer lane that
// ran a loop the others skipped).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n\t"
               "barrier.cluster.wait.acquire;" ::
                   : "memory");
}

}  // namespace aisp::common
