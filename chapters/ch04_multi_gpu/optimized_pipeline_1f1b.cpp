// Optimized: the same step in 8 micro-batches of 2048 tokens, in the 1F1B order (one forward, one
// backward: PipeDream-Flush, Megatron-LM's default schedule). Stage 0 runs one warm-up forward,
// then alternates the next micro-batch's forward with the oldest one's backward; stage 1
// alternates forward and backward of each micro-batch. Each boundary tensor (8 MiB per
// micro-batch) goes to the other GPU by cudaMemcpyPeerAsync on the sender's copy stream, which
// waits for the pass that wrote it (an event); the receiver's stream waits for the copy (an
// event recorded on the copy stream): no host synchronization. Weight gradients accumulate over
// the micro-batches in fp32 (beta = 1 after the first).
// Both GPUs then work at once except during the fill (stage 1 waits for the first forward) and
// the drain (stage 0 runs the last backward alone): the bubble is (S-1)/(M+S-1) = 1/9 of the
// time for S = 2 stages, M = 8 micro-batches, against 1/2 for the baseline; the copies overlap
// the next micro-batch's GEMMs. What it costs: GEMMs 8 times shorter (2048 rows), a little less
// efficient, and 8 times as many launches.
// Bytes: 128 MiB over NVLink (ceiling nvlink_peer). FLOPs: 825 GFLOP per GPU (ceiling
// bf16_tensor). pipeline_mlp_common.hpp.
#include "pipeline_mlp_common.hpp"

namespace aisp::ch04 {

class PipelineOneForwardOneBackward : public PipelineMlpProblem {
 public:
  PipelineOneForwardOneBackward() : PipelineMlpProblem(kMicroBatches) {}

  void setup(aisp::Context& ctx) override {
    PipelineMlpProblem::setup(ctx);
    warm_up(ctx);
  }

  void run(aisp::Context& ctx) override { run_schedule(ctx); }
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::PipelineOneForwardOneBackward)
