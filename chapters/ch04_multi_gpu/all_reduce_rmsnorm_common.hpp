// The problem both all_reduce_rmsnorm variants solve: the end of a tensor-parallel transformer
// layer at decode, on every GPU of the run. GPU d holds `partial_<d>`, its partial sum of the
// layer's output (rows x kHidden bf16, what a row-parallel GEMM leaves on each GPU), its residual
// stream `residual_<d>` and norm weight `gamma_<d>` (tensor parallelism keeps these equal on
// every GPU; here each GPU's are its own random values, so a GPU that used another's shows in
// verification). Every GPU must end with (all_reduce_rmsnorm_kernels.cuh, exact formulas)
//   residual_out_<d> = residual_<d> + sum over g of partial_<g>          (bf16)
//   normed_<d>       = RMSNorm(residual_out_<d>) * gamma_<d>             (bf16, eps 1e-5)
// Outputs in the order residual_out_0, normed_0, residual_out_1, normed_1, ... Verification
// compares every GPU's two outputs, and holds both variants to a float64 host reference.
//
// Sizes: decode messages, rows x 8192 bf16 = 16 KiB per row: 1 row (16 KiB, one token) and 16
// rows (256 KiB). Bytes counted: the all-reduce's message, rows x 16 KiB per GPU (NCCL's algorithm
// bytes, as ch04's all_reduce pairs count), against nvlink_peer; the norm's HBM traffic (80 KiB
// per row) and FLOPs (about 5 per element) are not counted: at these sizes neither bounds the
// time, latency does (launches, the GPUs' handshake), so the roofline fraction is small by nature.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace aisp::ch04 {

class AllReduceRmsNormProblem : public aisp::Benchmark {
 public:
  explicit AllReduceRmsNormProblem(int rows) : rows_(rows) {}

  aisp::Signature signature() const override;
  aisp::Requirements requirements() const override;
  // Allocates and fills every GPU's inputs and outputs. Throws aisp::Unavailable for more GPUs
  // than the one-shot kernel takes (kOneShotMaxGpus), so both variants skip alike.
  void setup(aisp::Context& ctx) override;
  std::vector<aisp::Tensor> outputs() const override;
  std::optional<aisp::Tolerance> tolerance() const override;
  aisp::Workload workload() const override;
  ReferenceFunction reference() const override;
  std::size_t reference_row_length() const override;

 protected:
  int gpus() const { return gpus_; }
  int rows() const { return rows_; }
  std::size_t elements() const;  // rows x kHidden
  const aisp::Tensor& partial(int d) const { return at(partial_, d); }
  const aisp::Tensor& residual(int d) const { return at(residual_, d); }
  const aisp::Tensor& gamma(int d) const { return at(gamma_, d); }
  const aisp::Tensor& residual_out(int d) const { return at(residual_out_, d); }
  const aisp::Tensor& normed(int d) const { return at(normed_, d); }
  // Synchronizes every GPU's stream (after a setup's own device work).
  void synchronize_all(aisp::Context& ctx) const;

 private:
  static const aisp::Tensor& at(const std::vector<aisp::Tensor>& v, int d) {
    return v[static_cast<std::size_t>(d)];
  }

  int rows_;
  int gpus_ = 0;
  std::vector<aisp::Tensor> partial_, residual_, gamma_, residual_out_, normed_;
};

}  // namespace aisp::ch04
