// The problem both zero2_optimizer_step variants solve: data-parallel training's optimizer step
// after the backward pass, on every GPU of the run. Each GPU d holds its own gradient of all
// kParams parameters (`grad_<d>`, fp32); the step sums the gradients over the GPUs, takes their
// mean (1/G) and applies one AdamW step (adam_step.cuh, step kStep, so the moments are not zero)
// to the fp32 master parameters and moments, and every GPU must end with the updated parameters.
// The state is replicated on every GPU, as plain data parallelism holds it: the master
// parameters `params_<d>` and the moments `adam_m_<d>`, `adam_v_<d>` (GPU 0's filled, copied to
// the others in setup). ZeRO would keep only GPU d's shard s = d of them; here the optimized
// variant reads only that shard of the replica, so both variants start from the same tensors
// (the memory ZeRO saves is not what this pair times).
// Outputs, out of place (the inputs stay as they were, which the harness checks): every GPU's
// `params_out_<d>`, all kParams updated parameters, and the new moments of shard s,
// `adam_m_out_<s>` and `adam_v_out_<s>` on GPU s. fp32 throughout (no mixed-precision copy).
//
// Bytes: the gradient, kParams · 4 = 256 MiB per GPU. All-reduce and reduce-scatter + all-gather
// both move 2(G-1)/G of it over each GPU's link each way (NCCL's bus bytes): 1x on 2 GPUs, a
// floor for any G. Ceiling: nvlink_peer. The AdamW pass's HBM traffic (28 bytes per element it
// updates: 1.88 GB per GPU over every parameter, 1/G of that over a shard) is not counted: it is
// what ZeRO removes, not what bounds the step. FLOPs: about 15 per element updated, not counted
// (microseconds of fp32 SIMT).
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <vector>

#include "adam_step.cuh"

namespace aisp::ch04 {

class Zero2OptimizerProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kParams = std::size_t{1} << 26;  // 256 MiB of fp32
  static constexpr int kStep = 10;

  aisp::Signature signature() const override;
  aisp::Requirements requirements() const override;
  // Takes the NCCL communicators (aisp::Unavailable without NCCL: the pair is skipped), then
  // allocates and fills every GPU's tensors. A variant's setup calls this, allocates what else
  // it needs, then warm_up().
  void setup(aisp::Context& ctx) override;
  std::vector<aisp::Tensor> outputs() const override;
  std::optional<aisp::Tolerance> tolerance() const override;
  aisp::Workload workload() const override;

 protected:
  // This process's GPUs (ctx.device_count(): every GPU in one process, its rank's one under
  // mpirun), and every GPU of the step (ctx.rank_count()): the shards are of the ranks.
  int gpus() const { return gpus_; }
  int ranks() const { return ranks_; }
  // Local GPU d's rank: its shard is [rank_of(d)·shard(), (rank_of(d) + 1)·shard()).
  int rank_of(int d) const { return rank_of_[static_cast<std::size_t>(d)]; }
  std::size_t shard() const { return kParams / static_cast<std::size_t>(ranks_); }
  static AdamHyperparameters hyperparameters(int gpus);
  const aisp::Tensor& grad(int d) const { return at(grads_, d); }
  // GPU d's replica of the state, all kParams elements.
  const aisp::Tensor& params(int d) const { return at(params_, d); }
  const aisp::Tensor& m(int d) const { return at(m_, d); }
  const aisp::Tensor& v(int d) const { return at(v_, d); }
  const aisp::Tensor& params_out(int d) const { return at(params_out_, d); }
  const aisp::Tensor& m_out_shard(int d) const { return at(m_out_, d); }
  const aisp::Tensor& v_out_shard(int d) const { return at(v_out_, d); }

  // The collectives, rank d on ctx.stream(d), one NCCL group each (fp32, sum).
  void all_reduce_gradients(aisp::Context& ctx, const std::vector<aisp::Tensor>& sums) const;
  void reduce_scatter_gradients(aisp::Context& ctx,
                                const std::vector<aisp::Tensor>& shard_sums) const;
  // In place: rank d sends params_out(d)[d·shard, (d+1)·shard), every rank receives all of it.
  void all_gather_params(aisp::Context& ctx) const;
  // One run() and a synchronize of every GPU: NCCL connects its ranks on the first collective.
  void warm_up(aisp::Context& ctx);

 private:
  static const aisp::Tensor& at(const std::vector<aisp::Tensor>& v, int d) {
    return v[static_cast<std::size_t>(d)];
  }

  // Rank 0's state on every GPU: copied peer to peer in one process; under mpirun an in-place
  // all-reduce in which every other rank adds zeros (exact: x + 0 = x).
  void replicate_rank_zero_state(aisp::Context& ctx);

  int gpus_ = 0;
  int ranks_ = 0;
  std::vector<int> rank_of_;
  std::vector<ncclComm*> comms_;
  std::vector<aisp::Tensor> grads_, params_, m_, v_, params_out_, m_out_, v_out_;
};

}  // namespace aisp::ch04
