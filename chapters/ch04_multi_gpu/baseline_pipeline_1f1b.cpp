// Baseline: the two-stage pipeline without micro-batching. The whole batch (16384 tokens) goes
// forward through stage 0 on GPU 0, its boundary activation (64 MiB) is copied to GPU 1, stage 1
// runs forward and backward, the boundary gradient (64 MiB) is copied back, and stage 0 runs
// backward. At any moment one GPU works and the other waits: the time is the sum of both stages'
// work and both copies, twice the work of one stage at least.
// Bytes: 128 MiB over NVLink (64 MiB each way; ceiling nvlink_peer). FLOPs: 825 GFLOP per GPU
// (ceiling bf16_tensor). pipeline_mlp_common.hpp.
#include "pipeline_mlp_common.hpp"

namespace aisp::ch04 {

class PipelineWithoutMicroBatches : public PipelineMlpProblem {
 public:
  PipelineWithoutMicroBatches() : PipelineMlpProblem(/*micro_batches=*/1) {}

  void setup(aisp::Context& ctx) override {
    PipelineMlpProblem::setup(ctx);
    warm_up(ctx);
  }

  void run(aisp::Context& ctx) override { run_schedule(ctx); }
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::PipelineWithoutMicroBatches)
