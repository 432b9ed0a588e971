// The problem both ddp_gradient_all_reduce variants solve: data-parallel training's backward pass
// of a stack of kLayers linear layers (y = x·Wᵀ, W of kDim × kDim, no bias, no activation between
// them: the GEMMs are the whole cost), on every GPU of the run, followed by the sum of the weight
// gradients over the GPUs. Each GPU d has its own micro-batch (kTokens tokens): its own layer
// inputs `activations_<d>` (one kTokens × kDim matrix per layer, as the forward pass saved them)
// and its own gradient of the loss at the top, `output_grad_<d>`, and its weights `weights_<d>`
// (training's replicas are equal; here each GPU's are a fill of their own, see setup). Per
// layer, last to first:
//   dW_l = dY_lᵀ · X_l   (kDim × kDim, written into the flat gradient buffer at layer l)
//   dX_l = dY_l · W_l    (kTokens × kDim, the next layer down's dY)
// in bf16 storage with fp32 accumulation (cublasGemmEx, CUBLAS_COMPUTE_32F), on one cuBLAS handle
// per GPU owned by the problem (the harness's ctx.cublas() is bound to GPU 0's stream). Outputs:
// every GPU's `grad_flat_<d>`, the weight gradients summed over the GPUs (what the optimizer
// step reads), and `input_grad_<d>`, dX of the first layer (GPU d's own, not reduced), which
// proves the whole chain ran.
//
// Bytes: the gradients all-reduced, kLayers · kDim² bf16 = 192 MiB per GPU. A ring all-reduce
// moves 2(G-1)/G of that over each GPU's link each way (NCCL's bus bytes): exactly 1x on 2 GPUs,
// more on more, so the count is a floor for any G (workload() is read before setup knows G).
// The GEMMs' HBM traffic is not counted: it is not what bounds them. Ceiling: nvlink_peer.
// FLOPs: the backward GEMMs, 4 · kTokens · kDim² per layer (2 · for dW, 2 · for dX), 1.65 TFLOP
// per GPU (each GPU does the same; the ceilings are one GPU's). Ceiling: bf16_tensor.
// The harness's roofline floor is the larger of the two times, max(compute, communication): the
// floor of the overlapped variant. The baseline cannot go below their sum.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace aisp::ch04 {

class DdpBackwardProblem : public aisp::Benchmark {
 public:
  static constexpr int kLayers = 24;
  static constexpr int kDim = 2048;
  static constexpr int kTokens = 4096;  // the micro-batch of one GPU
  static constexpr std::size_t kWeightElements = std::size_t{kDim} * kDim;
  static constexpr std::size_t kGradientBytes = kWeightElements * 2;  // one layer's, bf16
  static constexpr std::size_t kActivationElements = std::size_t{kTokens} * kDim;
  // PyTorch DDP's default bucket_cap_mb (25 MiB): a bucket holds the most whole gradients that
  // fit, 3 here (24 MiB), so 8 buckets of 3 layers.
  static constexpr std::size_t kBucketCapBytes = std::size_t{25} << 20;
  static constexpr int kLayersPerBucket =
      kGradientBytes >= kBucketCapBytes ? 1 : static_cast<int>(kBucketCapBytes / kGradientBytes);
  static constexpr int kBuckets = (kLayers + kLayersPerBucket - 1) / kLayersPerBucket;
  static constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

  DdpBackwardProblem() = default;
  ~DdpBackwardProblem() override;
  DdpBackwardProblem(const DdpBackwardProblem&) = delete;
  DdpBackwardProblem& operator=(const DdpBackwardProblem&) = delete;

  aisp::Signature signature() const override;
  aisp::Requirements requirements() const override;
  // Allocates and fills every GPU's tensors, creates the per-GPU cuBLAS handles and takes the
  // NCCL communicators (ctx.nccl throws aisp::Unavailable without NCCL: the pair is skipped).
  // A variant's setup calls this, creates what else it needs, then warm_up().
  void setup(aisp::Context& ctx) override;
  void teardown(aisp::Context& ctx) override;
  std::vector<aisp::Tensor> outputs() const override;
  std::optional<aisp::Tolerance> tolerance() const override;
  std::optional<aisp::InputDomain> input_domain() const override;
  aisp::Workload workload() const override;

 protected:
  int gpus() const { return gpus_; }
  // dW_l = dY_lᵀ·X_l on GPU `gpu`'s stream (ctx.stream(gpu)), into the flat gradient buffer.
  void enqueue_weight_grad(int gpu, int layer) const;
  // dX_l = dY_l·W_l on GPU `gpu`'s stream: the next layer down's dY (input_grad_<gpu> for l = 0).
  void enqueue_input_grad(int gpu, int layer) const;
  // ncclAllReduce (sum, in place, bf16) of the gradients of layers [first, first + count) on
  // every GPU, rank d on streams[d], in one NCCL group.
  void all_reduce_layers(int first, int count, const std::vector<cudaStream_t>& streams) const;
  // Makes GPU 0's stream wait for every other GPU's backward GEMMs queued so far, then marks
  // "backward_end" there: the time the slowest GPU's backward pass ended, from the start of run().
  void mark_backward_end(aisp::Context& ctx) const;
  // One run() and a synchronize of every GPU: NCCL connects its ranks on the first collective
  // and cuBLAS loads its kernels on the first GEMM; no timed run() pays for either.
  void warm_up(aisp::Context& ctx);
  const std::vector<cudaStream_t>& gpu_streams() const { return streams_; }

 private:
  void release() noexcept;

  int gpus_ = 0;   // this process's GPUs (ctx.device_count())
  int ranks_ = 0;  // every GPU of the all-reduce (ctx.rank_count(): more under mpirun)
  std::vector<cudaStream_t> streams_;  // ctx.stream(d)
  std::vector<aisp::Tensor> activations_, output_grads_, weights_, grads_, input_grads_, chain_,
      workspaces_;
  std::vector<cublasContext*> blas_;
  std::vector<ncclComm*> comms_;
  std::vector<cudaEvent_t> backward_done_;  // per GPU, for mark_backward_end
};

}  // namespace aisp::ch04
