// The problem both pipeline_1f1b variants solve: one training step (forward and backward, no
// optimizer) of a 4-layer MLP split into two pipeline stages, stage 0 (layers 0-1) on GPU 0 and
// stage 1 (layers 2-3) on GPU 1, over one batch of kBatch tokens. Every layer is
//   z_l = a_{l-1} · W_lᵀ,  a_l = gelu(z_l)      (W_l of kDim × kDim, no bias)
// with a_{-1} = `tokens` (GPU 0) and a_3 = `output` (GPU 1). The gradient of the loss at the top,
// `output_grad` (GPU 1), is given, as ddp_gradient_all_reduce gives it. Backward, per layer, last
// to first:
//   dz_l = da_l ⊙ gelu'(z_l),  dW_l = s · dz_lᵀ · a_{l-1} (fp32),  da_{l-1} = dz_l · W_l
// with s = 1/128 = 1/sqrt(kBatch): the batch's sum of per-token products scaled to the unit scale
// of the activations (a loss scale), so that one tolerance fits every output. Between the stages
// the boundary activation a_1 goes from GPU 0 to GPU 1 (forward) and its gradient da_1 from GPU 1
// to GPU 0 (backward), by cudaMemcpyPeerAsync over NVLink (the harness enables peer access).
//
// Outputs: `output` (a_3, bf16, GPU 1), `input_grad` (da_{-1}, bf16, GPU 0: the whole chain's
// proof), `weight_grad_stage0` (GPU 0) and `weight_grad_stage1` (GPU 1), fp32.
//
// The variants differ only in the schedule (run_schedule): the baseline runs the batch as one
// micro-batch (stage 0 forward, copy, stage 1 forward and backward, copy back, stage 0 backward:
// one GPU always idle), the optimized variant as kMicroBatches micro-batches in the 1F1B order
// (PipeDream-Flush, Megatron-LM's default), so the GPUs work at once except for the fill and the
// drain: the bubble is (stages - 1) / (micro-batches + stages - 1) of the time, 1/9 at 8.
//
// Bytes: the boundary transfers, kBatch · kDim bf16 each way, 64 MiB + 64 MiB (ceiling
// nvlink_peer). FLOPs: per GPU (each stage does the same work), 2 layers × (2 forward + 4
// backward) · kBatch · kDim² = 825 GFLOP (ceiling bf16_tensor). The floor of the baseline is
// both stages' work in sequence; 1F1B's is one stage's work over (1 - bubble).
//
// GEMMs: cublasGemmEx, bf16 operands, fp32 accumulation (CUBLAS_COMPUTE_32F), one cuBLAS handle
// per stage GPU owned by the problem, bound to that GPU's stream, with its own workspace.
// GELU: pipeline_gelu.cu. Only GPUs 0 and 1 work; a run on more GPUs leaves the others idle.
#pragma once

#include <aisp/aisp.hpp>

#include "pipeline_schedule.hpp"

#include <cuda_bf16.h>

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

namespace aisp::ch04 {

class PipelineMlpProblem : public aisp::Benchmark {
 public:
  static constexpr int kStages = 2;  // enqueue_pass sends to "the other" stage: two exactly
  static constexpr int kLayersPerStage = 2;
  static constexpr int kDim = 2048;
  static constexpr int kBatch = 16384;     // tokens in the batch
  static constexpr int kMicroBatches = 8;  // the optimized schedule's
  // 1/sqrt(kBatch), a power of two, so scaling is exact in any accumulation order.
  static constexpr float kWeightGradScale = 1.0f / 128.0f;
  static_assert(128 * 128 == kBatch, "kWeightGradScale is 1/sqrt(kBatch)");
  static_assert(kBatch % kMicroBatches == 0, "micro-batches of whole tokens");
  static constexpr std::size_t kActivationElements = std::size_t{kBatch} * kDim;
  static constexpr std::size_t kWeightElements = std::size_t{kDim} * kDim;
  static constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

  ~PipelineMlpProblem() override;
  PipelineMlpProblem(const PipelineMlpProblem&) = delete;
  PipelineMlpProblem& operator=(const PipelineMlpProblem&) = delete;

  aisp::Signature signature() const override;
  aisp::Requirements requirements() const override;
  // Allocates and fills both stages' tensors, creates the cuBLAS handles, the copy streams and
  // the events for `micro_batches` micro-batches; a variant's setup calls it, then warm_up().
  void setup(aisp::Context& ctx) override;
  void teardown(aisp::Context& ctx) override;
  std::vector<aisp::Tensor> outputs() const override;
  std::optional<aisp::Tolerance> tolerance() const override;
  std::optional<aisp::InputDomain> input_domain() const override;
  aisp::Workload workload() const override;

 protected:
  explicit PipelineMlpProblem(int micro_batches) : micro_batches_(micro_batches) {}
  // Queues the whole step in the 1F1B order for micro_batches_ micro-batches (1: the baseline's
  // schedule), on both GPUs' streams and their copy streams, joined back before it returns.
  void run_schedule(aisp::Context& ctx);
  // One run() and a synchronize of both GPUs: cuBLAS loads its kernels on the first GEMM; no
  // timed run() pays for it.
  void warm_up(aisp::Context& ctx);

 private:
  enum class Pass { forward, backward };
  struct StageTensors {
    aisp::Tensor input;        // stage 0: tokens; stage 1: the received a_1
    aisp::Tensor weights;      // kLayersPerStage × kDim × kDim
    aisp::Tensor pre;          // z_l, kLayersPerStage × kBatch × kDim
    aisp::Tensor act;          // a_l of the stage's layers but the last, (L-1) × kBatch × kDim
    aisp::Tensor last_act;     // stage 0: a_1 (sent); stage 1: `output`
    aisp::Tensor top_grad;     // stage 0: the received da_1; stage 1: `output_grad`
    aisp::Tensor dz;           // kBatch × kDim
    aisp::Tensor inner_grad;   // da_l of the stage's layers but the last, like act
    aisp::Tensor bottom_grad;  // stage 0: `input_grad`; stage 1: da_1 (sent)
    aisp::Tensor weight_grad;  // fp32, kLayersPerStage × kDim × kDim
    aisp::Tensor workspace;    // cuBLAS's
  };

  void enqueue_pass(aisp::Context& ctx, int stage, Pass pass, int micro_batch);
  void enqueue_forward(int stage, int micro_batch);
  void enqueue_backward(int stage, int micro_batch);
  void release() noexcept;

  int micro_batches_ = 1;
  std::array<StageTensors, kStages> stage_{};
  std::array<cudaStream_t, kStages> streams_{};       // ctx.stream(stage)
  std::array<cudaStream_t, kStages> copy_streams_{};  // created here, one per stage GPU
  std::array<cublasContext*, kStages> blas_{};
  std::array<cudaEvent_t, kStages> run_start_{}, copies_done_{};
  // Per micro-batch: the boundary tensor written on the sender's stream (ready), then copied on
  // its copy stream (sent). Stage 0 sends activations, stage 1 gradients.
  std::array<std::vector<cudaEvent_t>, kStages> boundary_ready_, boundary_sent_;
  std::vector<PipelinePass> queue_order_;  // one_f_one_b_host_order(kStages, micro_batches_)
};

}  // namespace aisp::ch04
