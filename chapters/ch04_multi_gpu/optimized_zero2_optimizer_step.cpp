// Optimized: ZeRO-2's step. The gradient is reduce-scattered instead of all-reduced (each GPU
// receives only the sum of its shard, kParams/G elements), the fused AdamW step (adam_step.cu)
// runs over that shard only, on the GPU's shard of the state (ZeRO would hold only that shard;
// here it is read from the replica both variants start from), writing its new parameters
// straight into their place in the full output, and an in-place all-gather then gives every GPU
// every shard's parameters. On the links: reduce-scatter + all-gather move the same bytes as the
// all-reduce (an all-reduce is a reduce-scatter followed by an all-gather). In HBM: the AdamW
// pass touches 1/G of the parameters on each GPU, and each GPU holds 1/G of the summed gradient
// (and would hold 1/G of the optimizer state). The one change from the baseline: what each GPU
// updates.
// Bytes: 256 MiB of gradient per GPU (ceiling nvlink_peer); the AdamW pass: 28 bytes per
// parameter of the shard. zero2_optimizer_common.hpp.
#include "zero2_optimizer_common.hpp"

#include <string>
#include <vector>

namespace aisp::ch04 {

class ReduceScatterShardAdamAllGather : public Zero2OptimizerProblem {
 public:
  void setup(aisp::Context& ctx) override {
    Zero2OptimizerProblem::setup(ctx);
    shard_sums_.clear();
    for (int d = 0; d < gpus(); ++d)
      shard_sums_.push_back(ctx.alloc("grad_shard_sum_" + std::to_string(d), aisp::DType::f32,
                                      shard(), aisp::Role::scratch, aisp::Memory::device, d));
    warm_up(ctx);
  }

  void run(aisp::Context& ctx) override {
    reduce_scatter_gradients(ctx, shard_sums_);
    ctx.mark("gradient_summed");  // on GPU 0's stream: the collective's end there
    const AdamHyperparameters hyper = hyperparameters(ranks());
    for (int d = 0; d < gpus(); ++d) {
      const aisp::ScopedDevice on(d);
      AdamOperands x;
      const std::size_t own = static_cast<std::size_t>(rank_of(d)) * shard();  // GPU d's shard
      x.params = params(d).as<const float>() + own;
      x.gradient_sum = shard_sums_[static_cast<std::size_t>(d)].as<const float>();
      x.m = m(d).as<const float>() + own;
      x.v = v(d).as<const float>() + own;
      x.params_out = params_out(d).as<float>() + own;
      x.m_out = m_out_shard(d).as<float>();
      x.v_out = v_out_shard(d).as<float>();
      launch_adam_step(x, shard(), hyper, ctx.stream(d));
    }
    ctx.mark("optimizer_stepped");
    all_gather_params(ctx);
  }

 private:
  std::vector<aisp::Tensor> shard_sums_;
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::ReduceScatterShardAdamAllGather)
