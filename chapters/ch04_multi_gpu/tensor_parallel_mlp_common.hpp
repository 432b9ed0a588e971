// The problem every tensor_parallel_mlp variant solves: a transformer MLP block split over the G
// GPUs of the run, Megatron-LM's tensor parallelism with sequence parallelism. The block is
//   y = gelu(x · W_upᵀ) · W_downᵀ,  x of kTokens × kHidden, W_up of kFfn × kHidden,
//   W_down of kHidden × kFfn, bf16 storage, fp32 accumulation (cuBLASLt)
// and GPU d holds:
//   `tokens_<d>`   its kTokens/G tokens of x (sequence-parallel: the tokens are split)
//   `w_up_<d>`     rows [d·F/G, (d+1)·F/G) of W_up   (column-parallel: a slice of the ffn)
//   `w_down_<d>`   columns [d·F/G, (d+1)·F/G) of W_down, stored as its kHidden × F/G matrix
//                  (row-parallel: the same slice of the ffn)
// Each GPU's weights are a fill of their own name (the global W_up and W_down are their
// concatenations). The block on G GPUs:
//   1. all-gather the tokens: every GPU gets all of x (kTokens × kHidden)
//   2. h_d = gelu(x · W_up_dᵀ)       kTokens × F/G, GELU in cuBLASLt's epilogue (its tanh form)
//   3. p_d = h_d · W_down_dᵀ         kTokens × kHidden, GPU d's part of y
//   4. reduce-scatter: GPU d gets rows [d·T/G, (d+1)·T/G) of Σ_g p_g, `output_<d>`: y for its
//      own tokens, sequence-parallel again for the next block.
// The variants differ in the order and overlap of these steps: the baseline runs them one after
// the other on each GPU's stream; the optimized variants split the tokens into chunks and run
// the chunks' collectives on a communication stream under the other chunks' GEMMs.
//
// Bytes: the collectives' traffic per GPU, each way over its link, for G = 2 (workload() is read
// before setup knows G; more GPUs move more, so it is a floor): the all-gather receives
// (G-1)/G · kTokens · kHidden bf16 = 32 MiB and the reduce-scatter sends as much: 64 MiB
// (ceiling nvlink_peer). FLOPs per GPU for G = 2: 2 · 2 · kTokens · kHidden · kFfn / G =
// 1.10 TFLOP (ceiling bf16_tensor); on G GPUs 2.2/G TFLOP.
#pragma once

#include <aisp/aisp.hpp>

#include "../common/cublaslt_matmul_plan.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace aisp::ch04 {

class TensorParallelMlpProblem : public aisp::Benchmark {
 public:
  static constexpr int kTokens = 8192;
  static constexpr int kHidden = 4096;
  static constexpr int kFfn = 16384;
  static constexpr std::size_t kCublasLtWorkspaceBytes = std::size_t{32} << 20;

  ~TensorParallelMlpProblem() override;
  TensorParallelMlpProblem(const TensorParallelMlpProblem&) = delete;
  TensorParallelMlpProblem& operator=(const TensorParallelMlpProblem&) = delete;

  aisp::Signature signature() const override;
  aisp::Requirements requirements() const override;
  // Allocates and fills every GPU's tensors, takes the NCCL communicators (ctx.nccl throws
  // aisp::Unavailable without NCCL: the pair is skipped) and plans both GEMMs per GPU for row
  // blocks of kTokens / chunks rows. A variant's setup calls this, creates what else it needs,
  // then warm_up().
  void setup(aisp::Context& ctx) override;
  void teardown(aisp::Context& ctx) override;
  std::vector<aisp::Tensor> outputs() const override;
  std::optional<aisp::Tolerance> tolerance() const override;
  std::optional<aisp::InputDomain> input_domain() const override;
  aisp::Workload workload() const override;
  // The float64 block (tensor_parallel_mlp_reference.hpp), asked token by token.
  ReferenceFunction reference() const override;
  std::size_t reference_row_length() const override { return kHidden; }

 protected:
  // `chunks`: how many row blocks the tokens are cut into (1: the baseline's whole-batch GEMMs).
  explicit TensorParallelMlpProblem(int chunks) : chunks_(chunks) {}

  int gpus() const { return gpus_; }
  int chunks() const { return chunks_; }
  // Each GPU's tokens per chunk: kTokens / (G · chunks). A chunk of the gathered x has G times
  // as many rows, rank r's at rows [r · chunk_tokens, (r+1) · chunk_tokens) of it.
  std::size_t chunk_tokens() const;
  const std::vector<cudaStream_t>& gpu_streams() const { return streams_; }

  // In one NCCL group, rank d on streams[d]: gathers rows [chunk·Tc, (chunk+1)·Tc) of every
  // GPU's tokens (Tc = chunk_tokens()) into chunk `chunk` of its gathered x.
  void all_gather_chunk(int chunk, const std::vector<cudaStream_t>& streams) const;
  // h and p of chunk `chunk` (kTokens / chunks rows of the gathered x) on GPU `gpu`'s stream.
  void enqueue_chunk_gemms(int gpu, int chunk) const;
  // In one NCCL group, rank d on streams[d]: sums chunk `chunk` of every GPU's p and gives GPU d
  // its rows, rows [chunk·Tc, (chunk+1)·Tc) of `output_<d>`.
  void reduce_scatter_chunk(int chunk, const std::vector<cudaStream_t>& streams) const;
  // One run() and a synchronize of every GPU: NCCL connects its ranks on the first collective
  // and cuBLASLt loads its kernels on the first GEMM; no timed run() pays for either.
  void warm_up(aisp::Context& ctx);

 private:
  void release() noexcept;

  int chunks_ = 1;
  int gpus_ = 0;
  std::vector<cudaStream_t> streams_;  // ctx.stream(d)
  std::vector<aisp::Tensor> tokens_, w_up_, w_down_, gathered_, hidden_, partial_, out_,
      workspaces_;
  std::vector<std::unique_ptr<aisp::common::CublasLtMatmulPlan>> up_plans_, down_plans_;  // per GPU
  std::vector<ncclComm*> comms_;
};

}  // namespace aisp::ch04
