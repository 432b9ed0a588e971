// The problem every disaggregated_prefill_decode variant solves: serve a batch of kRequests
// requests with prefill on GPU 0 and decode on GPU 1 (disaggregated serving: DistServe,
// Splitwise, vLLM's and SGLang's prefill/decode instances), handing each request's KV cache from
// the prefill GPU to the decode GPU.
//
// The model: kLayers attention layers of a Llama-3-8B-shaped block (d_model 4096, 32 query
// heads, 8 KV heads of 128: GQA 4:1), random weights, no MLP and no norm, so that the KV cache is
// a larger share of the work than in a full model (it still is 64 MiB per request):
//   qkv = x · W_qkvᵀ,  o = attention(q, K, V),  x += o · W_oᵀ        (bf16, fp32 accumulation)
// - Prefill (GPU 0), per request: the kPrompt prompt tokens through every layer, causal attention
//   (chapter 18's flash FA2, K/V repeated per query head); each layer's K and V of every prompt
//   token form the request's KV cache, [layer][K|V][kv_head][row][dim] (64 MiB of prompt rows),
//   written in the decode GPU's layout: kCacheRows rows per head, the last kDecodeSteps left for
//   the tokens decode appends.
// - Handoff: that cache into the decode GPU's cache, one contiguous copy of 64.5 MiB (the 16
//   unwritten rows per head travel too: 0.8% more bytes, one copy instead of 128).
// - Decode (GPU 1), per request, kDecodeSteps steps of one token: its input embedding is given
//   (teacher forcing: no sampling is modelled; the last prompt token is step 0's input, so the
//   prefill covers the prompt before it), and per layer it projects q, k, v, appends k and v to
//   the cache, attends over the whole cache (chapter 18's split-K decode kernel) and adds the
//   output projection. Step t's output token is its hidden state after the last layer; each step
//   reads what the earlier steps appended. The decode of a request is captured once into two
//   CUDA graphs (step 0; steps 1..) replayed by every variant alike: its ~650 small launches would
//   otherwise keep the host, not GPU 1, the bottleneck.
//
// The variants differ only in the schedule (Handoff, run_schedule):
// - host_staged_after_batch (baseline): every prefill, then the whole batch's KV copied GPU 0 ->
//   pinned host -> GPU 1, then every decode. One GPU works at a time and the KV crosses PCIe twice.
// - peer_after_batch: the same order, the batch's KV copied GPU 0 -> GPU 1 over NVLink in one
//   cudaMemcpyPeerAsync (isolates what the copy path alone buys).
// - peer_per_request (optimized): request r's KV goes to GPU 1 (cudaMemcpyPeerAsync, on a copy
//   stream) as soon as its prefill ends, and GPU 1 decodes request r while GPU 0 prefills r+1:
//   events between the GPUs' streams, no host synchronization inside run().
// - nccl_per_request: the same pipeline with each handoff an ncclSend (GPU 0) / ncclRecv (GPU 1)
//   pair on the harness's communicator instead of the copy engines: NCCL's kernels move the bytes
//   on SMs of both GPUs, beside the prefill and the decode.
//
// Outputs: `prompt_hidden` (GPU 0, [requests, prompt, d_model]: the prefill's residual stream
// after the last layer, proof of the whole prefill chain), `decode_kv_cache` (GPU 1, every
// request's cache after decode: the handed-over rows and the appended ones, proof of the
// handoff) and `decode_hidden` (GPU 1, [requests, steps, d_model]: every output token's hidden
// state). Verification poisons outputs before its run, so a decode that read its cache before the
// handoff landed reads NaN and fails.
//
// Marks (docs/contract.md), on GPU 0's stream, which does no work and waits for each event in turn:
//   first_token               request 0's first decode step done on GPU 1 (its time to first token:
//                             its prefill, its handoff and one step, plus, in the batch schedules,
//                             every other request's prefill and handoff)
//   first_request_done        request 0's last decode step done; (this - first_token) /
//                             (kDecodeSteps - 1) is its time per output token, decoding while GPU 0
//                             still prefills (optimized) or alone (baseline)
//   last_request_first_token  the last request's first token: the batch's worst time to first token
// and, in the batch schedules only, prefill_done and kv_on_decode_gpu before them. (The
// optimized schedule's prefill end is not ordered with its first token on the marks' stream.)
//
// Bytes: the prompt's KV handed over, kRequests × 64 MiB = 512 MiB (ceiling nvlink_peer; the
// copies move 0.8% more, the rows decode fills; the baseline moves it twice over PCIe). FLOPs:
// prefill 13.2 TFLOP (projections 11.0, causal attention 2.2) and decode 0.12 TFLOP (ceiling
// bf16_tensor); the decode reads every weight (671 MB) once per step and request: it is bound by
// HBM, not by those FLOPs.
#pragma once

#include <aisp/aisp.hpp>

#include <cuda_bf16.h>

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "disaggregation_kernels.cuh"

namespace aisp::ch15 {

class DisaggregatedInferenceProblem : public aisp::Benchmark {
 public:
  static constexpr int kRequests = 8;
  static constexpr int kLayers = 8;
  static constexpr int kQHeads = 32;
  static constexpr int kKvHeads = 8;
  static constexpr int kHeadDim = 128;
  static constexpr int kModel = kQHeads * kHeadDim;                      // 4096
  static constexpr int kQkvWidth = (kQHeads + 2 * kKvHeads) * kHeadDim;  // 6144
  static constexpr int kPrompt = 2048;                       // prompt tokens per request
  static constexpr int kDecodeSteps = 16;                    // output tokens per request
  static constexpr int kCacheRows = kPrompt + kDecodeSteps;  // decode cache rows per head
  // Weights uniform in ±bound/sqrt(d_model): q and k of standard deviation ~2 (a peaked softmax,
  // so the output depends on which cached rows it reads), each layer adding ~1/3 to the variance
  // of the residual stream.
  static constexpr double kQkvWeightBound = 6.0;
  static constexpr double kOutWeightBound = 0.5;
  static constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

  // Elements of one request's prompt KV (all layers, K and V: the bytes the handoff must move),
  // and of its cache in the decode layout (kCacheRows rows per head: what is copied).
  static constexpr std::size_t kPrefillKvElements =
      std::size_t{kLayers} * 2 * kKvHeads * kPrompt * kHeadDim;
  static constexpr std::size_t kDecodeKvElements =
      std::size_t{kLayers} * 2 * kKvHeads * kCacheRows * kHeadDim;

  enum class Handoff {
    host_staged_after_batch,
    peer_after_batch,
    peer_per_request,
    nccl_per_request
  };

  ~DisaggregatedInferenceProblem() override;
  DisaggregatedInferenceProblem(const DisaggregatedInferenceProblem&) = delete;
  DisaggregatedInferenceProblem& operator=(const DisaggregatedInferenceProblem&) = delete;

  aisp::Signature signature() const override;
  aisp::Requirements requirements() const override;
  // Allocates and fills both GPUs' tensors, copies the weights to GPU 1, creates the streams,
  // events and cuBLAS handles, captures every request's decode graphs and runs the schedule once
  // (libraries load their kernels outside the timed runs).
  void setup(aisp::Context& ctx) override;
  void run(aisp::Context& ctx) override { run_schedule(ctx); }
  void teardown(aisp::Context& ctx) override;
  std::vector<aisp::Tensor> outputs() const override;
  std::optional<aisp::InputDomain> input_domain() const override;
  aisp::Workload workload() const override;

 protected:
  explicit DisaggregatedInferenceProblem(Handoff handoff) : handoff_(handoff) {}

 private:
  struct DecodeGraphs {
    aisp::CapturedGraph first_step, other_steps;
  };

  void run_schedule(aisp::Context& ctx);
  void enqueue_prefill(int request, cudaStream_t stream);
  void enqueue_decode_steps(int request, int first_step, int end_step, cudaStream_t stream);
  void enqueue_peer_copy(int first_request, int requests, cudaStream_t stream);
  void enqueue_nccl_handoff(int request);
  void release() noexcept;

  const __nv_bfloat16* prefill_kv(int request) const;
  __nv_bfloat16* decode_kv(int request, int layer, int k_or_v) const;

  Handoff handoff_;
  AttentionLayout layout_{kQHeads, kKvHeads, kHeadDim};
  // GPU 0: inputs, the prefill's scratch and every request's KV cache (decode layout).
  aisp::Tensor prompt_embeddings_, prefill_w_qkv_, prefill_w_out_, prompt_hidden_;
  aisp::Tensor prefill_qkv_, q_heads_, k_repeated_, v_repeated_, o_heads_, o_tokens_;
  aisp::Tensor prefill_kv_, prefill_workspace_;
  // Pinned host: the baseline's staging buffer (the batch's KV).
  aisp::Tensor host_kv_;
  // GPU 1: the weights' replica, inputs, the decode caches and the decode scratch.
  aisp::Tensor decode_w_qkv_, decode_w_out_, decode_inputs_, decode_lengths_;
  aisp::Tensor decode_kv_cache_, decode_hidden_, decode_qkv_, decode_o_;
  aisp::Tensor decode_partial_o_, decode_partial_lse_, decode_workspace_;

  cudaStream_t prefill_stream_ = nullptr;  // GPU 0
  cudaStream_t copy_stream_ = nullptr;     // GPU 0: the handoff copies (peer, or to the host)
  cudaStream_t capture_stream_ = nullptr;  // GPU 1, setup only
  cudaStream_t receive_stream_ = nullptr;  // GPU 1: the ncclRecv of nccl_per_request
  std::array<ncclComm*, 2> nccl_{};        // nccl_per_request: ctx.nccl(0), ctx.nccl(1)
  cublasContext* prefill_blas_ = nullptr;  // GPU 0, on prefill_stream_
  cublasContext* decode_blas_ = nullptr;   // GPU 1, on capture_stream_ (captured into graphs)
  std::vector<DecodeGraphs> decode_graphs_;
  // Events. GPU 0: run_start_[0], prefill_done_[r], handed_over_[r] (copy stream),
  // copies_done_, prefills_done_. GPU 1: run_start_[1], kv_landed_ (host-staged: after the
  // upload on GPU 1's stream), received_[r] (nccl_per_request), first_token_[r], decoded_[r].
  std::array<cudaEvent_t, 2> run_start_{};
  std::vector<cudaEvent_t> prefill_done_, handed_over_, received_, first_token_, decoded_;
  cudaEvent_t prefills_done_ = nullptr, copies_done_ = nullptr, kv_landed_ = nullptr;
};

}  // namespace aisp::ch15
