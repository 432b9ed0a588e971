// Float64 references for attention outputs (Benchmark::reference), for the forward problem and
// for decode over a KV cache (shapes in attention_shapes.cuh).
//
// One output element O[row][d] needs its query row against every visible key: a dot product per
// key (head_dim multiply-adds each), a softmax over them, then one weighted sum of V's column d.
// The verifier asks for ~2048 elements spread over the output, in increasing index order, one at
// a time. Two caches keep that affordable:
//   - the decoded K and V of the head being sampled (element() decodes one BF16 value per call);
//     samples come sorted, so each head is decoded at most once;
//   - the last row's whole output (all head_dim elements), for samples that share a row.
// Cost for the forward problem (S 4096, D 128, 64 heads): 64 heads × 1 M decoded values plus
// ~2048 rows × 4096 × 128 multiply-adds in double, about 1–3 s of one host core. For decode
// (32 sequences × 8 KV heads, 8k–32k tokens): every valid cache row is decoded once (~1.3 G
// values) and ~1024 rows × ~20k × 128 multiply-adds, about 5–15 s; both once per verified pair.
#pragma once

#include <aisp/host_inputs.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "attention_shapes.cuh"

namespace aisp::attention {

// softmax_j(scale · q·k_j) over keys [first, last] (inclusive), then Σ_j p_j v_j: writes all
// head_dim outputs of the row. k and v hold rows of head_dim doubles, key 0 first.
inline void reference_attention_row(const std::vector<double>& q, const std::vector<double>& k,
                                    const std::vector<double>& v, int first, int last, int head_dim,
                                    double scale, std::vector<double>& out) {
  const std::size_t d = static_cast<std::size_t>(head_dim);
  std::vector<double> scores(static_cast<std::size_t>(last - first + 1));
  double max_score = -INFINITY;
  for (int j = first; j <= last; ++j) {
    const double* kj = k.data() + static_cast<std::size_t>(j) * d;
    double dot = 0;
    for (std::size_t x = 0; x < d; ++x)
      dot += q[x] * kj[x];
    scores[static_cast<std::size_t>(j - first)] = dot * scale;
    max_score = std::max(max_score, dot * scale);
  }
  double sum = 0;
  for (double& s : scores) {
    s = std::exp(s - max_score);
    sum += s;
  }
  out.assign(d, 0.0);
  for (int j = first; j <= last; ++j) {
    const double p = scores[static_cast<std::size_t>(j - first)] / sum;
    const double* vj = v.data() + static_cast<std::size_t>(j) * d;
    for (std::size_t x = 0; x < d; ++x)
      out[x] += p * vj[x];
  }
}

// Decodes `count` consecutive elements of input `name` starting at `first` into doubles.
inline void decode_input_range(const aisp::HostInputs& in, const char* name, std::size_t first,
                               std::size_t count, std::vector<double>& out) {
  out.resize(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = in.element(name, first + i);
}

// Reference for ForwardShape outputs O [B, H, S, D] from inputs "q", "k", "v" of the same layout.
class ForwardAttentionReference {
 public:
  explicit ForwardAttentionReference(ForwardShape shape) : shape_(shape) {}

  double operator()(const aisp::HostInputs& in, std::size_t /*output*/, std::size_t index) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t d = static_cast<std::size_t>(shape_.head_dim);
    const std::size_t s = static_cast<std::size_t>(shape_.seq);
    const std::size_t row = index / d;
    if (row != cached_row_) {
      const std::size_t head = row / s;
      const int i = static_cast<int>(row % s);
      if (head != cached_head_) {
        decode_input_range(in, "k", head * s * d, s * d, k_);
        decode_input_range(in, "v", head * s * d, s * d, v_);
        cached_head_ = head;
      }
      decode_input_range(in, "q", row * d, d, q_);
      reference_attention_row(q_, k_, v_, shape_.first_key(i), shape_.last_key(i), shape_.head_dim,
                              1.0 / std::sqrt(static_cast<double>(d)), out_);
      cached_row_ = row;
    }
    return out_[index % d];
  }

 private:
  ForwardShape shape_;
  std::mutex mutex_;
  std::size_t cached_head_ = static_cast<std::size_t>(-1);
  std::size_t cached_row_ = static_cast<std::size_t>(-1);
  std::vector<double> q_, k_, v_, out_;
};

// Reference for DecodeShape outputs o [B, Hq, D] from inputs "q" [B, Hq, D] and the contiguous
// caches "k_cache", "v_cache" [B, Hkv, max_len, D] (the first cache_length(b) rows valid).
class DecodeAttentionReference {
 public:
  explicit DecodeAttentionReference(DecodeShape shape) : shape_(shape) {}

  double operator()(const aisp::HostInputs& in, std::size_t /*output*/, std::size_t index) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t d = static_cast<std::size_t>(shape_.head_dim);
    const std::size_t row = index / d;  // b * q_heads + h
    if (row != cached_row_) {
      const int b = static_cast<int>(row / static_cast<std::size_t>(shape_.q_heads));
      const int h = static_cast<int>(row % static_cast<std::size_t>(shape_.q_heads));
      const std::size_t kv_row = static_cast<std::size_t>(b) * shape_.kv_heads +
                                 static_cast<std::size_t>(h / shape_.group());
      const int length = shape_.cache_length(b);
      if (kv_row != cached_kv_row_) {
        const std::size_t base = kv_row * static_cast<std::size_t>(shape_.max_length) * d;
        decode_input_range(in, "k_cache", base, static_cast<std::size_t>(length) * d, k_);
        decode_input_range(in, "v_cache", base, static_cast<std::size_t>(length) * d, v_);
        cached_kv_row_ = kv_row;
      }
      decode_input_range(in, "q", row * d, d, q_);
      reference_attention_row(q_, k_, v_, 0, length - 1, shape_.head_dim,
                              1.0 / std::sqrt(static_cast<double>(d)), out_);
      cached_row_ = row;
    }
    return out_[index % d];
  }

 private:
  DecodeShape shape_;
  std::mutex mutex_;
  std::size_t cached_kv_row_ = static_cast<std::size_t>(-1);
  std::size_t cached_row_ = static_cast<std::size_t>(-1);
  std::vector<double> q_, k_, v_, out_;
};

}  // namespace aisp::attention
