// Baseline: the whole backward pass first, then one ncclAllReduce per gradient tensor (a training
// loop that sums the gradients after loss.backward(), tensor by tensor). Per layer, last to first,
// dW_l then dX_l on every GPU's stream; when every GPU's backward has ended, 24 all-reduces of one
// layer's gradient (8 MiB of bf16 each), in backward order, on the same streams. The NVLink sits
// idle during the GEMMs and the tensor cores during the all-reduces: the time is their sum.
// Bytes: 192 MiB of gradients per GPU (the all-reduced bytes; ceiling nvlink_peer). FLOPs:
// 4 · tokens · d² per layer, 1.65 TFLOP per GPU (ceiling bf16_tensor). ddp_backward_common.hpp.
#include "ddp_backward_common.hpp"

namespace aisp::ch04 {

class DdpAllReduceAfterBackward : public DdpBackwardProblem {
 public:
  void setup(aisp::Context& ctx) override {
    DdpBackwardProblem::setup(ctx);
    warm_up(ctx);
  }

  void run(aisp::Context& ctx) override {
    // Layer by layer across the GPUs, so every GPU gets its first GEMM at once.
    for (int layer = kLayers - 1; layer >= 0; --layer) {
      for (int d = 0; d < gpus(); ++d)
        enqueue_weight_grad(d, layer);
      for (int d = 0; d < gpus(); ++d)
        enqueue_input_grad(d, layer);
    }
    mark_backward_end(ctx);
    for (int layer = kLayers - 1; layer >= 0; --layer)
      all_reduce_layers(layer, 1, gpu_streams());
  }
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::DdpAllReduceAfterBackward)
