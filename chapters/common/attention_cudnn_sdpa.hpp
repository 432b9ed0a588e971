// cuDNN's fused scaled-dot-product attention (forward, inference), built through the cuDNN 9
// backend (graph) API and loaded at run time, so a machine without cuDNN still runs everything
// else: only the variant that uses this class fails, with the reason.
//
// The graph is the one cuDNN's fused flash-attention engines recognise (the shape the cuDNN
// frontend lowers its SDPA node to for cuDNN 9.x):
//   S  = Q · Kᵀ                 matmul, FP32 compute, virtual FP32 [B, H, S, S]
//   S' = S · scale              pointwise MUL with a by-value FP32 scalar
//   M  = max_row(S')            reduction MAX            → [B, H, S, 1]
//   E  = exp(S' − M)            pointwise SUB, EXP
//   L  = Σ_row E                reduction ADD            → [B, H, S, 1]
//   P  = E / L                  pointwise DIV, virtual BF16 (the second matmul's input type)
//   O  = P · V                  matmul, FP32 compute, BF16 out
// (optionally also Stats = M + log L as a real FP32 output, the training form, if no engine takes
// the inference form). Kᵀ is K's memory described with swapped dims and strides.
// Heuristics (mode A) rank the engines; the first whose execution plan finalizes is used.
//
// Harness-free (plain pointers and a stream), so scripts/probes/attention_probe.cu uses it too.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace aisp::attention {

// "cuDNN 9.14.0 (libcudnn.so.9)" when the library loads, else why not (never throws).
std::string cudnn_availability();
// True when the library and every backend entry point used here could be loaded.
bool cudnn_available();

struct CudnnSdpaShape {
  int batch = 0;
  int heads = 0;
  int seq = 0;
  int head_dim = 0;
  float scale = 1.0f;  // applied to Q·Kᵀ before the softmax
};

// A finalized SDPA execution plan for one shape, its handle bound to one stream. Q, K, V, O are
// BF16 [B, H, S, D] contiguous. Construction throws std::runtime_error saying what failed (cuDNN
// missing, no engine for the graph, ...) and what to do.
// Thrown when this machine cannot run cuDNN's SDPA: no cuDNN 9 library to load, or no engine
// of the installed cuDNN for the graph. The variant turns it into aisp::Unavailable (a skip with
// this reason); any other failure stays an error.
class CudnnSdpaUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CudnnSdpa {
 public:
  CudnnSdpa(const CudnnSdpaShape& shape, cudaStream_t stream);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;

  // Device scratch the plan needs (workspace, plus the FP32 [B, H, S] stats when the plan is the
  // training form); pass a buffer of at least this many bytes to bind().
  std::size_t scratch_bytes() const;
  // Fixes the tensors the plan runs on (builds the variant pack once). Buffers 16-byte aligned.
  void bind(const void* q, const void* k, const void* v, void* o, void* scratch);
  // Enqueues the attention on the stream given at construction. bind() first.
  void run();
  // Which engine runs it and in which graph form, for logs and READMEs.
  const std::string& description() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace aisp::attention
