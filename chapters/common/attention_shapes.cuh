// Attention problem shapes shared by the attention chapters (ch13, ch18) and the flash-attention
// lab: the forward (prefill) problem, the decode problem over a KV cache, and which keys a query
// sees under each mask. Plain structs and host/device helpers only (no harness types), so the
// kernel files and the standalone probe (scripts/probes/attention_probe.cu) include them too.
//
// Layouts, stated once:
//   forward:  Q, K, V, O are [batch, heads, seq, head_dim] BF16, contiguous (head_dim fastest).
//   decode:   q, o are [batch, q_heads, head_dim]; the contiguous cache K, V is
//             [batch, kv_heads, max_len, head_dim] with the first cache_length[b] rows of each
//             (sequence, KV head) valid; query head h reads KV head h / (q_heads / kv_heads) (GQA).
//   paged:    attention_kv_cache.cuh.
// Scores are scaled by 1/sqrt(head_dim) before the softmax (softmax_scale below).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace aisp::attention {

// Which keys a query row i may attend to.
//   none:           every key.
//   causal:         keys j <= i.
//   sliding_window: keys with i - window < j <= i (causal, at most `window` keys).
enum class MaskKind : int { none = 0, causal = 1, sliding_window = 2 };

inline const char* mask_name(MaskKind mask) {
  switch (mask) {
  case MaskKind::none:
    return "none";
  case MaskKind::causal:
    return "causal";
  case MaskKind::sliding_window:
    return "sliding_window";
  }
  return "?";
}

struct ForwardShape {
  int batch = 4;
  int heads = 16;
  int seq = 4096;
  int head_dim = 128;
  MaskKind mask = MaskKind::none;
  int window = 0;  // keys per query under sliding_window (the query's own key included)

  __host__ __device__ std::size_t elements() const {
    return static_cast<std::size_t>(batch) * heads * seq * head_dim;
  }
  // Visible keys of query row i: [first_key(i), last_key(i)], both inclusive.
  __host__ __device__ int first_key(int i) const {
    return mask == MaskKind::sliding_window ? (i - window + 1 > 0 ? i - window + 1 : 0) : 0;
  }
  __host__ __device__ int last_key(int i) const { return mask == MaskKind::none ? seq - 1 : i; }
  // (query, key) pairs one head attends over: S² unmasked, S(S+1)/2 causal, and for a window W
  // S·W − W(W−1)/2 (the first W−1 rows see fewer keys).
  double visible_pairs_per_head() const {
    const double s = seq;
    switch (mask) {
    case MaskKind::none:
      return s * s;
    case MaskKind::causal:
      return s * (s + 1) / 2;
    case MaskKind::sliding_window: {
      const double w = window < seq ? window : seq;
      return s * w - w * (w - 1) / 2;
    }
    }
    return 0;
  }
  // Two matrix products over the visible pairs: Q·Kᵀ and P·V, 2·D FLOPs per pair each.
  double flops() const { return 4.0 * head_dim * visible_pairs_per_head() * batch * heads; }
  float softmax_scale() const { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }
};

// One query token per sequence against its KV cache (the decode step of generation).
struct DecodeShape {
  int batch = 32;
  int q_heads = 32;
  int kv_heads = 8;
  int head_dim = 128;
  int min_length = 8192;   // cache lengths run linearly from min_length (sequence 0) ...
  int max_length = 32768;  // ... to max_length (the last sequence)

  __host__ __device__ int group() const { return q_heads / kv_heads; }
  // Cache length of sequence b: spread evenly over [min_length, max_length], most of them not a
  // multiple of any page or tile size, so every kernel meets ragged ends.
  __host__ __device__ int cache_length(int b) const {
    if (batch <= 1)
      return max_length;
    return min_length +
           static_cast<int>(static_cast<long long>(max_length - min_length) * b / (batch - 1));
  }
  std::size_t q_elements() const { return static_cast<std::size_t>(batch) * q_heads * head_dim; }
  // Elements of one contiguous cache tensor (K or V), padding rows included.
  std::size_t cache_elements() const {
    return static_cast<std::size_t>(batch) * kv_heads * max_length * head_dim;
  }
  long long total_tokens() const {
    long long t = 0;
    for (int b = 0; b < batch; ++b)
      t += cache_length(b);
    return t;
  }
  // K and V bytes of the valid cache rows, each read once: what decode attention must move.
  double kv_bytes() const {
    return 2.0 * 2.0 * static_cast<double>(total_tokens()) * kv_heads * head_dim;
  }
  // Q·Kᵀ and P·V for every query head over its sequence's cache.
  double flops() const { return 4.0 * head_dim * static_cast<double>(total_tokens()) * q_heads; }
  float softmax_scale() const { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }
};

}  // namespace aisp::attention
