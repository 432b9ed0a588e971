// A variant's own NCCL communicators, one rank per GPU of the run in one process, created with
// ncclCommInitRankConfig and an ncclConfig_t: the per-communicator knobs the harness's
// communicator (ctx.nccl(d), ncclCommInitAll, NCCL's defaults) cannot set. What each knob does:
//   min_ctas / max_ctas (ncclConfig_t::minCTAs/maxCTAs, NCCL_MIN_CTAS/NCCL_MAX_CTAS): bounds on
//     the number of channels, one CTA each, a collective runs on. A channel is one SM moving one
//     slice of the buffer through the ring; over NVLink a channel's bandwidth is bounded by what
//     one SM can load and store, so the channel count sets how much of the link a large
//     all-reduce can fill (and how many SMs it takes from concurrent compute).
//   cga_cluster_size (cgaClusterSize, NCCL_CGA_CLUSTER_SIZE): NCCL's CTAs launched as thread-block
//     clusters of this size on sm_90+ (0..8), which places them on fewer GPCs.
// 0 (or -1 for the cluster size) leaves a knob at NCCL's default. Protocol (NCCL_PROTO) and
// algorithm (NCCL_ALGO) are not in ncclConfig_t: NCCL reads them from the environment once per
// process, so they cannot differ between two variants of a pair run in the same worker.
//
// Zero-copy user buffers (ncclMemAlloc + ncclCommRegister) are not used: NCCL registers only
// buffers from the cuMem API (ncclMemAlloc) for peer access by default, its registration of
// cudaMalloc buffers is off (NCCL_LEGACY_CUDA_REGISTER=0) and not recommended, and a pair's
// outputs must be harness allocations (ctx.alloc, cudaMalloc) for verification to see them.
//
// The functions come from the libnccl.so.2 the harness loaded (aisp::nccl_functions() first, then
// dlopen with RTLD_NOLOAD: the same copy of the library, never a second one). Without NCCL,
// create() throws aisp::Unavailable, as ctx.nccl() does.
#pragma once

#include <aisp/aisp.hpp>
#include <aisp/nccl.hpp>

#include <string>
#include <vector>

namespace aisp::ch04 {

struct NcclCommunicatorConfig {
  int min_ctas = 0;              // 0: NCCL's default
  int max_ctas = 0;              // 0: NCCL's default
  int cga_cluster_size = -1;     // -1: NCCL's default
  std::string describe() const;  // "minCTAs 32, maxCTAs 32, cgaClusterSize default"
};

#if AISP_HAVE_NCCL
// The NCCL entry points these communicators need, from the harness's copy of the library.
struct ConfiguredNcclFunctions {
  ncclResult_t (*GetUniqueId)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*CommInitRankConfig)(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank,
                                     ncclConfig_t* config) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t comm) = nullptr;
};
#endif

class ConfiguredNcclCommunicators {
 public:
  ConfiguredNcclCommunicators() = default;
  ~ConfiguredNcclCommunicators() { destroy(); }
  ConfiguredNcclCommunicators(const ConfiguredNcclCommunicators&) = delete;
  ConfiguredNcclCommunicators& operator=(const ConfiguredNcclCommunicators&) = delete;

  // One communicator per GPU 0 .. gpus-1 with `config`; the previous ones are destroyed first.
  // Throws aisp::Unavailable without NCCL, std::runtime_error when NCCL refuses.
  void create(int gpus, const NcclCommunicatorConfig& config);
  void destroy() noexcept;
  ncclComm* communicator(int gpu) const { return comms_.at(static_cast<std::size_t>(gpu)); }

 private:
  std::vector<ncclComm*> comms_;
};

}  // namespace aisp::ch04
