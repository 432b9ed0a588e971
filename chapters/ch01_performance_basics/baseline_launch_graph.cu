// Baseline: the 1000-kernel chain launched one kernel at a time on ctx.stream(). Every launch
// goes through the runtime and the driver on the host and is then fetched and set up by the GPU's
// front end on its own; for kernels this small that per-launch cost, not the arithmetic, is the
// run time (ANCHORS.md: 4.1–4.5 µs per asynchronous launch on the H200).
// Bytes: 8 KiB (x read, y written); 1.0 MFLOP; 1000 launches. Ceiling: graph node launch.
#include "launch_graph_common.cuh"

namespace aisp::ch01 {

struct LaunchEachKernel : LaunchGraphProblem {
  void run(aisp::Context& ctx) override { enqueue_chain(ctx.stream()); }
};

}  // namespace aisp::ch01

AISP_VARIANT(aisp::ch01::LaunchEachKernel)
