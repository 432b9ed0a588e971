// The problem both moe_all_to_all variants solve: the token dispatch of an expert-parallel MoE
// layer, on every GPU of the run. The layer's 8 experts are split evenly over the G GPUs (GPU g
// holds experts [g·8/G, (g+1)·8/G)); each GPU d has its own T = 2048 tokens (`x_<d>`, hidden 4096,
// bf16) and router logits (`logits_<d>`, T x 8, f32, Gumbel noise plus a log-prior:
// chapters/common/moe_shape.hpp), and each token goes to its top-2 experts. Every GPU must end
// with the rows every GPU sends it (`recv_<d>`): for each source s in rank order, s's tokens routed
// to d's experts, in (expert, token) order, one row per token-expert pair; then zero rows up to the
// buffer's capacity (G x T x 2 rows: every token of every GPU routed here twice), and how many
// rows came from each source (`recv_counts_<d>`, i32, G). Outputs in the order recv_0,
// recv_counts_0, recv_1, ...
//
// Both variants run the same steps before the exchange, on each GPU's stream: the router (top-2 of
// the logits), the sort of the token-expert pairs by expert, and the packing of the send buffer in
// that order (moe_all_to_all_kernels.cuh), which makes each destination's rows one run. They
// differ in the exchange only. Routing: uniform (every expert equally likely) or Zipf with s = 1
// (expert e's prior ∝ 1/(e+1): on 2 GPUs about three quarters of the pairs go to GPU 0's experts).
//
// Bytes counted: the token rows a GPU sends to other GPUs on average under uniform routing,
// T x 2 x 8 KiB x (G-1)/G = 16 MiB on 2 GPUs (stated for min_gpus, read before setup); under
// Zipf routing the hot GPU receives more, so it stays a floor. Ceiling: nvlink_peer. 0 FLOPs.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "../common/moe_shape.hpp"

namespace aisp::ch04 {

class MoeAllToAllProblem : public aisp::Benchmark {
 public:
  static constexpr int kTokens = 2048;  // per GPU
  static constexpr int kHidden = 4096;
  static constexpr int kExperts = 8;
  static constexpr int kTopK = 2;
  static constexpr int kRowsPerGpu = kTokens * kTopK;  // token-expert pairs each GPU sends

  explicit MoeAllToAllProblem(common::MoeRouting routing) : routing_(routing) {}

  aisp::Signature signature() const override;
  aisp::Requirements requirements() const override;
  // Takes the communicators (aisp::Unavailable without NCCL), allocates every GPU's tensors and
  // scratch, fills the inputs and turns the logits' uniform fill into routing logits.
  void setup(aisp::Context& ctx) override;
  std::vector<aisp::Tensor> outputs() const override;
  std::optional<aisp::InputDomain> input_domain() const override;
  aisp::Workload workload() const override;
  ReferenceFunction reference() const override;
  std::size_t reference_row_length() const override { return kHidden; }

 protected:
  int gpus() const { return gpus_; }
  std::size_t capacity_rows() const;  // G x T x top_k
  ncclComm* comm(int d) const { return comms_[static_cast<std::size_t>(d)]; }
  const aisp::Tensor& send(int d) const { return at(send_, d); }
  const aisp::Tensor& send_counts(int d) const { return at(send_counts_, d); }
  const aisp::Tensor& recv(int d) const { return at(recv_, d); }
  const aisp::Tensor& recv_counts(int d) const { return at(recv_counts_, d); }
  // On every GPU's stream: route, sort by expert, pack send(d) and write send_counts(d).
  void route_and_pack(aisp::Context& ctx) const;
  // Zeroes recv(d)'s rows from `first_row` to the capacity, on GPU d's stream.
  void zero_tail(aisp::Context& ctx, int d, std::size_t first_row) const;
  void synchronize_all(aisp::Context& ctx) const;
  static std::size_t row_bytes() { return std::size_t{kHidden} * 2; }

 private:
  static const aisp::Tensor& at(const std::vector<aisp::Tensor>& v, int d) {
    return v[static_cast<std::size_t>(d)];
  }

  common::MoeRouting routing_;
  int gpus_ = 0;
  std::size_t sort_temp_bytes_ = 0;
  std::vector<ncclComm*> comms_;
  std::vector<aisp::Tensor> x_, logits_, recv_, recv_counts_;
  std::vector<aisp::Tensor> topk_ids_, topk_weights_, expert_counts_, iota_, sorted_experts_,
      sorted_rows_, expert_offsets_, sort_temp_, send_, send_counts_;
};

}  // namespace aisp::ch04
