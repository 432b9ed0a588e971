// Baseline: the kernel reads managed x from where it is, the host. Every first touch of a page
// not resident on the GPU raises a GPU page fault: the warps that hit it stall, the driver on the
// CPU services the faults in batches, migrates the pages (4 KiB to 2 MiB at a time, more once its
// heuristics see the streaming pattern), updates the page tables, and the warps replay. The bytes
// are the same as a bulk copy; the per-batch fault round trips to the CPU, and the GPU waiting
// through them, are where the time goes.
// Per call: the faulting kernel, then the reset (x back to the host, the same in both variants).
// Bytes: 2 × 256 MiB across the host link; 2·n FLOPs. Ceiling: pinned host↔device bandwidth.
#include "unified_memory_prefetch_common.cuh"

namespace aisp::ch06 {

struct ManagedOnDemand : UnifiedMemoryPrefetchProblem {
  void run(aisp::Context& ctx) override {
    launch(ctx.stream());
    move_x_to_host(ctx.stream());  // the reset: the next call starts with x on the host again
  }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::ManagedOnDemand)
