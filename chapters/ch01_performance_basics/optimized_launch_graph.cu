// Optimized: the same 1000 launches recorded once into a CUDA graph (stream capture in setup),
// and run() is one graph launch. What changed: the host validates and encodes the 1000 kernels
// once, at instantiation, instead of every run; the GPU receives the whole chain as one unit and
// steps from node to node without waiting on the host (ANCHORS.md: 0.68 µs per node on the H200,
// against 4.1–4.5 µs per asynchronous launch).
// Bytes: 8 KiB (x read, y written); 1.0 MFLOP; 1000 kernels. Ceiling: graph node launch.
#include "launch_graph_common.cuh"

namespace aisp::ch01 {

struct LaunchOneGraph : LaunchGraphProblem {
  void setup(aisp::Context& ctx) override {
    LaunchGraphProblem::setup(ctx);
    // Record the chain on the stream once; nothing runs while it is captured.
    graph_ = aisp::capture_graph(ctx.stream(), [this](cudaStream_t s) { enqueue_chain(s); });
    // Move the graph to the device now, so the first timed launch does not pay for it.
    graph_.upload(ctx.stream());
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  void run(aisp::Context& ctx) override { graph_.launch(ctx.stream()); }

 private:
  aisp::CapturedGraph graph_;  // released with the variant
};

}  // namespace aisp::ch01

AISP_VARIANT(aisp::ch01::LaunchOneGraph)
