// Baseline: plain data parallelism's step. Every GPU all-reduces the whole gradient
// (ncclAllReduce, 256 MiB of fp32) and then runs the fused AdamW step (adam_step.cu) over all
// 2^26 parameters, on a replica of the whole optimizer state (parameters and both moments,
// assembled from the G shards in setup): G GPUs do the same 1.88 GB of HBM traffic each, and
// hold the whole state each. The updated moments of GPU d's own shard go to the shared outputs
// (`adam_m_out_<d>`, `adam_v_out_<d>`, so both variants are checked on the same tensors), the
// rest to the replica's buffers: the kernel runs over [0, d·S), [d·S, (d+1)·S) and
// [(d+1)·S, P), the same bytes as one launch.
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
    params_full_.clear();
    m_full_.clear();
    v_full_.clear();
    m_replica_out_.clear();
    v_replica_out_.clear();
    for (int d = 0; d < gpus(); ++d) {
      auto alloc = [&](const char* name, aisp::Role role) {
        return ctx.alloc(std::string(name) + "_" + std::to_string(d), aisp::DType::f32, kParams,
                         role, aisp::Memory::device, d);
      };
      sums_.push_back(alloc("grad_sum", aisp::Role::scratch));
      // Replicas of the state, derived from the shards: inputs of their own (hashed, refreshed
      // through setup), which the harness cannot change element by element.
      params_full_.push_back(alloc("params_full", aisp::Role::input));
      m_full_.push_back(alloc("adam_m_full", aisp::Role::input));
      v_full_.push_back(alloc("adam_v_full", aisp::Role::input));
      m_replica_out_.push_back(alloc("adam_m_replica_out", aisp::Role::scratch));
      v_replica_out_.push_back(alloc("adam_v_replica_out", aisp::Role::scratch));
    }
    const std::size_t bytes = shard() * sizeof(float);
    for (int d = 0; d < gpus(); ++d) {
      const aisp::ScopedDevice on(d);
      const auto g = static_cast<std::size_t>(d);
      for (int s = 0; s < gpus(); ++s) {
        const std::size_t offset = static_cast<std::size_t>(s) * shard();
        AISP_CUDA_CHECK(cudaMemcpyPeerAsync(params_full_[g].as<float>() + offset, d,
                                            params_shard(s).data(), s, bytes, ctx.stream(d)));
        AISP_CUDA_CHECK(cudaMemcpyPeerAsync(m_full_[g].as<float>() + offset, d,
                                            m_shard(s).data(), s, bytes, ctx.stream(d)));
        AISP_CUDA_CHECK(cudaMemcpyPeerAsync(v_full_[g].as<float>() + offset, d,
                                            v_shard(s).data(), s, bytes, ctx.stream(d)));
      }
      AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
    }
    warm_up(ctx);
  }

  void run(aisp::Context& ctx) override {
    all_reduce_gradients(ctx, sums_);
    ctx.mark("gradient_summed");  // on GPU 0's stream: the collective's end there
    const AdamHyperparameters hyper = hyperparameters(gpus());
    const std::size_t s = shard();
    for (int d = 0; d < gpus(); ++d) {
      const aisp::ScopedDevice on(d);
      const auto g = static_cast<std::size_t>(d);
      const std::size_t own = static_cast<std::size_t>(d) * s;
      // [begin, end) of the parameters, moments written to m_out/v_out at `out_offset`.
      auto step = [&](std::size_t begin, std::size_t end, float* m_out, float* v_out,
                      std::size_t out_offset) {
        AdamOperands x;
        x.params = params_full_[g].as<const float>() + begin;
        x.gradient_sum = sums_[g].as<const float>() + begin;
        x.m = m_full_[g].as<const float>() + begin;
        x.v = v_full_[g].as<const float>() + begin;
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
  std::vector<aisp::Tensor> sums_, params_full_, m_full_, v_full_, m_replica_out_, v_replica_out_;
};

}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::AllReduceThenFullAdam)
