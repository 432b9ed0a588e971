// The float64 reference of a mixture-of-experts layer (moe_shape.hpp), from host copies of its
// inputs (aisp::HostInputs: "x", "logits", "w13", "w2"), and the host router it starts from.
//
//   route:   the top_k largest logits of the token (ties: the lower expert first), weights the
//            softmax over those k logits (moe_routing.cuh's conventions)
//   expert:  g = x·W1_eᵀ, u = x·W3_eᵀ, h = silu(g)·u, o = h·W2_eᵀ       (W13_e = [W1_e; W3_e])
//   y[t, c]  = Σ_j weight_j · o_{e_j}[c]
// computed in double from the bf16 inputs (decoded exactly), nothing rounded in between.
//
// Cost. An element y[t, c] needs its token's h for each of its k experts: k·2·intermediate·hidden
// multiply-adds (180 M for 8 experts top-2 at 4096 × 11008, the same for 64 experts top-8 at
// 4096 × 2816), reading those experts' gate and up weights (360 MB in bf16) — the reference is
// bound by host memory bandwidth. It keeps the last token's h, so elements of one token cost one
// computation. The problem declares reference_row_length() = hidden, so verification samples 64
// random tokens and 32 random columns of each, asked token by token: 64 × 360 MB ≈ 23 GB of host
// memory reads per verification, spread over every host thread (2048 elements of 2048 different
// tokens would read ~0.7 TB). The weights are kept as
// their bf16 bits (2 bytes each: 2.2 GB for the 8-expert layer, 4.4 GB for the 64-expert one),
// decoded once on the first call.
#pragma once

#include <aisp/aisp.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "moe_shape.hpp"

namespace aisp::common {

// A token's routing from its logits row, as the GPU routers compute it (in double).
struct MoeTokenRoute {
  std::vector<int> experts;     // k slots, largest logit first
  std::vector<double> weights;  // softmax over the k selected logits
};

inline MoeTokenRoute moe_route_token(std::span<const float> logits_row, int top_k) {
  const int experts = static_cast<int>(logits_row.size());
  std::vector<int> order(static_cast<std::size_t>(experts));
  for (int e = 0; e < experts; ++e)
    order[static_cast<std::size_t>(e)] = e;
  std::partial_sort(order.begin(), order.begin() + top_k, order.end(), [&](int a, int b) {
    const float la = logits_row[static_cast<std::size_t>(a)];
    const float lb = logits_row[static_cast<std::size_t>(b)];
    return la > lb || (la == lb && a < b);
  });
  MoeTokenRoute route;
  route.experts.assign(order.begin(), order.begin() + top_k);
  const double top = logits_row[static_cast<std::size_t>(route.experts[0])];
  double sum = 0;
  for (int e : route.experts) {
    route.weights.push_back(
        std::exp(static_cast<double>(logits_row[static_cast<std::size_t>(e)]) - top));
    sum += route.weights.back();
  }
  for (double& w : route.weights)
    w /= sum;
  return route;
}

class MoeReference {
 public:
  explicit MoeReference(MoeShape shape) : s_(shape) {}

  // y[index / hidden, index % hidden].
  double operator()(const aisp::HostInputs& in, std::size_t index) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t hidden = static_cast<std::size_t>(s_.hidden);
    const std::size_t inter = static_cast<std::size_t>(s_.intermediate);
    if (w13_.empty()) {
      w13_ = bf16_bits(in, "w13", static_cast<std::size_t>(s_.experts) * 2 * inter * hidden);
      w2_ = bf16_bits(in, "w2", static_cast<std::size_t>(s_.experts) * hidden * inter);
    }
    const std::size_t token = index / hidden, column = index % hidden;
    if (token != token_)
      compute_token(in, token);
    double y = 0;
    for (std::size_t j = 0; j < route_.experts.size(); ++j) {
      const std::uint16_t* w =
          w2_.data() + (static_cast<std::size_t>(route_.experts[j]) * hidden + column) * inter;
      const double* h = h_.data() + j * inter;
      double o = 0;
      for (std::size_t i = 0; i < inter; ++i)
        o += h[i] * static_cast<double>(bf16_to_float(w[i]));
      y += route_.weights[j] * o;
    }
    return y;
  }

 private:
  static float bf16_to_float(std::uint16_t bits) {
    const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &word, sizeof(value));
    return value;
  }

  // The tensor's bf16 values, re-encoded exactly as their 16-bit patterns.
  static std::vector<std::uint16_t> bf16_bits(const aisp::HostInputs& in, const char* name,
                                              std::size_t count) {
    std::vector<std::uint16_t> bits(count);
    parallel(count, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const float value = static_cast<float>(in.element(name, i));
        std::uint32_t word;
        std::memcpy(&word, &value, sizeof(word));
        bits[i] = static_cast<std::uint16_t>(word >> 16);  // exact: the value is a bf16
      }
    });
    return bits;
  }

  void compute_token(const aisp::HostInputs& in, std::size_t token) {
    const std::size_t hidden = static_cast<std::size_t>(s_.hidden);
    const std::size_t inter = static_cast<std::size_t>(s_.intermediate);
    const std::size_t experts = static_cast<std::size_t>(s_.experts);
    route_ = moe_route_token(in.f32("logits").subspan(token * experts, experts), s_.top_k);
    std::vector<float> x(hidden);
    for (std::size_t c = 0; c < hidden; ++c)
      x[c] = static_cast<float>(in.element("x", token * hidden + c));
    const std::size_t slots = route_.experts.size();
    h_.assign(slots * inter, 0.0);
    parallel(slots * inter, [&](std::size_t begin, std::size_t end) {
      for (std::size_t q = begin; q < end; ++q) {
        const std::size_t j = q / inter, i = q % inter;
        const std::uint16_t* w1 =
            w13_.data() + (static_cast<std::size_t>(route_.experts[j]) * 2 * inter + i) * hidden;
        const std::uint16_t* w3 = w1 + inter * hidden;
        const double g = dot(x.data(), w1, hidden), u = dot(x.data(), w3, hidden);
        h_[q] = g / (1.0 + std::exp(-g)) * u;
      }
    });
    token_ = token;
  }

  // Products of two bf16 values are exact in fp32; summed in double over four chains.
  static double dot(const float* x, const std::uint16_t* w, std::size_t n) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::size_t k = 0;
    for (; k + 4 <= n; k += 4) {
      s0 += static_cast<double>(x[k] * bf16_to_float(w[k]));
      s1 += static_cast<double>(x[k + 1] * bf16_to_float(w[k + 1]));
      s2 += static_cast<double>(x[k + 2] * bf16_to_float(w[k + 2]));
      s3 += static_cast<double>(x[k + 3] * bf16_to_float(w[k + 3]));
    }
    for (; k < n; ++k)
      s0 += static_cast<double>(x[k] * bf16_to_float(w[k]));
    return (s0 + s1) + (s2 + s3);
  }

  // body(begin, end) over contiguous chunks of [0, count), one per host thread.
  template <class Body>
  static void parallel(std::size_t count, Body&& body) {
    const std::size_t workers = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
    const std::size_t chunk = (count + workers - 1) / workers;
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers && w * chunk < count; ++w)
      pool.emplace_back([&, w] { body(w * chunk, std::min(count, (w + 1) * chunk)); });
    for (std::thread& t : pool)
      t.join();
  }

  MoeShape s_;
  std::mutex mutex_;
  std::vector<std::uint16_t> w13_, w2_;
  MoeTokenRoute route_;
  std::vector<double> h_;
  std::size_t token_ = static_cast<std::size_t>(-1);
};

}  // namespace aisp::common
