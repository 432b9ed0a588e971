// Baseline: the tensor-parallel MLP block step after step on each GPU's stream. One all-gather of
// every GPU's tokens (32 MiB arrive per GPU on 2 GPUs), then GEMM 1 + GELU over all 8192 tokens
// (h = gelu(x·W_upᵀ), 8192 × 8192 per GPU on 2 GPUs), GEMM 2 (p = h·W_downᵀ), then one
// reduce-scatter of p. The tensor cores wait for the all-gather and NVLink waits for the GEMMs:
// the time is communication + compute.
// Bytes: 64 MiB per GPU over NVLink on 2 GPUs (ceiling nvlink_peer). FLOPs: 1.10 TFLOP per GPU
// on 2 GPUs (ceiling bf16_tensor). tensor_parallel_mlp_common.hpp.
#include "tensor_parallel_mlp_common.hpp"

namespace aisp::ch04 {

class TensorParallelMlpSerialized : public TensorParallelMlpProblem {
 public:
  TensorParallelMlpSerialized() : TensorParallelMlpProblem(/*chunks=*/1) {}

  void setup(aisp::Context& ctx) override {
    TensorParallelMlpProblem::setup(ctx);
    warm_up(ctx);
  }

  // Marks on GPU 0's stream split the time into its phases: the all-gather ("all_gathered"),
  // the GEMMs ("gemms_done"), and the reduce-scatter after that.
  void run(aisp::Context& ctx) override {
    all_gather_chunk(0, gpu_streams());
    ctx.mark("all_gathered");
    for (int d = 0; d < gpus(); ++d)
      enqueue_chunk_gemms(d, 0);
    ctx.mark("gemms_done");
    reduce_scatter_chunk(0, gpu_streams());
  }
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::TensorParallelMlpSerialized)
