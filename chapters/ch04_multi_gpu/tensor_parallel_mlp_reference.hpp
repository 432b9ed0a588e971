// The float64 reference of the tensor-parallel MLP block (tensor_parallel_mlp_common.hpp), from
// host copies of its inputs: element [r, j] of `output_<o>` is y[t, j] for GPU o's r-th token t,
//   h[f] = gelu_tanh(Σ_k x[t, k] · W_up[f, k])        for every f of the ffn (every GPU's slice)
//   y[t, j] = Σ_f h[f] · W_down[j, f]
// computed in double from the bf16 inputs (decoded exactly), nothing rounded in between: the
// block as one GPU would compute it, whatever the split. GELU in its tanh form, as cuBLASLt's
// CUBLASLT_EPILOGUE_GELU computes it (ch10's gemm_bias_gelu reference takes the same form).
//
// Cost: a token's h is kFfn · kHidden = 67 M multiply-adds, reading every W_up slice (128 MiB of
// bf16, decoded once to 256 MiB of fp32); its row-mates then cost kFfn each. The problem declares
// reference_row_length() = kHidden, so verification asks 64 tokens of each output, 32 elements of
// each, token by token: about 4.3 G multiply-adds per output, spread over the host's threads.
#pragma once

#include <aisp/aisp.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace aisp::ch04 {

class TensorParallelMlpReference {
 public:
  TensorParallelMlpReference(int tokens, int hidden, int ffn)
      : tokens_(static_cast<std::size_t>(tokens)), hidden_(static_cast<std::size_t>(hidden)),
        ffn_(static_cast<std::size_t>(ffn)) {}

  // Element `index` of `output_<output>`.
  double operator()(const aisp::HostInputs& in, std::size_t output, std::size_t index) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (w_up_.empty())
      decode_weights(in);
    const std::size_t row = index / hidden_, column = index % hidden_;
    if (!has_row_ || output != cached_output_ || row != cached_row_) {
      compute_hidden(in, output, row);
      cached_output_ = output;
      cached_row_ = row;
      has_row_ = true;
    }
    // W_down's slice g is hidden × (ffn / G), row-major: W_down[j, g·S + s] at j·S + s.
    const std::size_t slice = ffn_ / gpus_;
    double sum = 0;
    for (std::size_t g = 0; g < gpus_; ++g) {
      const float* w = w_down_.data() + g * hidden_ * slice + column * slice;
      const double* h = hidden_row_.data() + g * slice;
      for (std::size_t s = 0; s < slice; ++s)
        sum += h[s] * static_cast<double>(w[s]);
    }
    return sum;
  }

 private:
  static double gelu_tanh(double x) {
    const double k = std::sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }

  // G from the inputs (each GPU holds tokens / G tokens): the reference needs no setup state.
  void decode_weights(const aisp::HostInputs& in) {
    const std::size_t local = in.count("tokens_0") / hidden_;
    gpus_ = local == 0 ? 0 : tokens_ / local;
    if (gpus_ < 1 || ffn_ % gpus_ != 0)
      throw std::invalid_argument("tensor_parallel_mlp reference: tokens_0 holds " +
                                  std::to_string(local) + " tokens, which does not split " +
                                  std::to_string(tokens_) + " tokens over whole GPUs");
    const std::size_t slice_elements = ffn_ / gpus_ * hidden_;
    w_up_.resize(ffn_ * hidden_);
    w_down_.resize(ffn_ * hidden_);
    for (std::size_t g = 0; g < gpus_; ++g) {
      const std::string up = "w_up_" + std::to_string(g), down = "w_down_" + std::to_string(g);
      float* up_slice = w_up_.data() + g * slice_elements;
      float* down_slice = w_down_.data() + g * slice_elements;
      parallel(slice_elements, [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
          up_slice[i] = static_cast<float>(in.element(up, i));  // exact: the value is a bf16
          down_slice[i] = static_cast<float>(in.element(down, i));
        }
      });
    }
  }

  // body(first, last) over [0, count) cut into one range per host thread.
  template <class Body>
  static void parallel(std::size_t count, const Body& body) {
    const std::size_t workers = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
    const std::size_t per_worker = (count + workers - 1) / workers;
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < workers; ++w) {
      const std::size_t first = std::min(count, w * per_worker);
      const std::size_t last = std::min(count, first + per_worker);
      pool.emplace_back([&body, first, last] { body(first, last); });
    }
    for (std::thread& t : pool)
      t.join();
  }

  // hidden_row_[f] for GPU `output`'s token `row`, every f of the ffn, over the host's threads.
  void compute_hidden(const aisp::HostInputs& in, std::size_t output, std::size_t row) {
    const std::string name = "tokens_" + std::to_string(output);
    std::vector<double> x(hidden_);
    for (std::size_t k = 0; k < hidden_; ++k)
      x[k] = in.element(name, row * hidden_ + k);
    hidden_row_.assign(ffn_, 0.0);
    parallel(ffn_, [&](std::size_t first, std::size_t last) {
      for (std::size_t f = first; f < last; ++f) {
        const float* weights = w_up_.data() + f * hidden_;
        double z = 0;
        for (std::size_t k = 0; k < hidden_; ++k)
          z += x[k] * static_cast<double>(weights[k]);
        hidden_row_[f] = gelu_tanh(z);
      }
    });
  }

  std::size_t tokens_, hidden_, ffn_, gpus_ = 0;
  std::mutex mutex_;
  // Every GPU's slice in GPU order: W_up as ffn × hidden (slice g's rows [g·S, (g+1)·S)), W_down
  // as G slices of hidden × S.
  std::vector<float> w_up_, w_down_;
  std::vector<double> hidden_row_;
  bool has_row_ = false;
  std::size_t cached_output_ = 0, cached_row_ = 0;
};

}  // namespace aisp::ch04
