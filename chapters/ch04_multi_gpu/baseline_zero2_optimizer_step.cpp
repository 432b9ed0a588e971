// Baseline: plain data parallelism's step. Every GPU all-reduces the whole gradient
// (ncclAllReduce, 256 MiB of fp32) and then runs the fused AdamW step (adam_step.cu) over all
// 2^26 parameters of its replica of the state: G GPUs do the same 1.88 GB of HBM traffic each.
// The updated moments of GPU d's own shard go to the shared outputs (`adam_m_out_<d>`,
// `adam_v_out_<d>`, so both variants are checked on the same tensors), the rest of the new
// replica to buffers of its own: the kernel runs over [0, d·S), [d·S, (d+1)·S) and [(d+1)·S, P),
// the same bytes as one launch.
// Bytes: 256 MiB of gradient per GPU (ceiling nvlink_peer); the AdamW pass: 28 bytes per
// parameter, all 2^26 of them, on every GPU. zero2_optimizer_common.hpp.
#include "zero2_optimizer_common.hpp"

#include <string>
#include <vector>

namespace aisp::ch04 {

class AllReduceThenFullAdam : public Zero2OptimizerProblem {
 public:
  void setup(aisp::Context& ctx) override {
    Zero2OptimizerProblem::setup(ctx);
    sums_.clear();
    m_replica_out_.clear();
    v_replica_out_.clear();
    for (int d = 0; d < gpus(); ++d) {
      auto scratch = [&](const char* name) {
        return ctx.alloc(std::string(name) + "_" + std::to_string(d), aisp::DType::f32, kParams,
                         aisp::Role::scratch, aisp::Memory::device, d);
      };
      sums_.push_back(scratch("grad_sum"));
      m_replica_out_.push_back(scratch("adam_m_replica_out"));
      v_replica_out_.push_back(scratch("adam_v_replica_out"));
    }
    warm_up(ctx);
  }

  void run(aisp::Context& ctx) override {
    all_reduce_gradients(ctx, sums_);
    ctx.mark("gradient_summed");  // on GPU 0's stream: the collective's end there
    const AdamHyperparameters hyper = hyperparameters(ranks());
    const std::size_t s = shard();
    for (int d = 0; d < gpus(); ++d) {
      const aisp::ScopedDevice on(d);
      const auto g = static_cast<std::size_t>(d);
      const std::size_t own = static_cast<std::size_t>(rank_of(d)) * s;  // GPU d's shard
      // [begin, end) of the parameters, moments written to m_out/v_out at `out_offset`.
      auto step = [&](std::size_t begin, std::size_t end, float* m_out, float* v_out,
                      std::size_t out_offset) {
        AdamOperands x;
        x.params = params(d).as<const float>() + begin;
        x.gradient_sum = sums_[g].as<const float>() + begin;
        x.m = m(d).as<const float>() + begin;
        x.v = v(d).as<const float>() + begin;
        x.params_out = params_out(d).as<float>() + begin;
        x.m_out = m_out + out_offset;
        x.v_out = v_out + out_offset;
        launch_adam_step(x, end - begin, hyper, ctx.stream(d));
      };
      float* m_replica = m_replica_out_[g].as<float>();
      float* v_replica = v_replica_out_[g].as<float>();
      step(0, own, m_replica, v_replica, 0);
      step(own, own + s, m_out_shard(d).as<float>(), v_out_shard(d).as<float>(), 0);
      step(own + s, kParams, m_replica, v_replica, own + s);
    }
    ctx.mark("optimizer_stepped");
  }

 private:
  std::vector<aisp::Tensor> sums_, m_replica_out_, v_replica_out_;
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::AllReduceThenFullAdam)
