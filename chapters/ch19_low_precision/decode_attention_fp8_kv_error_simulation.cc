// Host simulation behind decode_attention_fp8_kv's tolerance and lower-precision bound (not built
// by the suite; run it by hand):
//   g++ -O2 -std=c++20 -I/usr/local/cuda/include -Ichapters \
//     chapters/ch19_low_precision/decode_attention_fp8_kv_error_simulation.cc -o /tmp/fp8_kv_sim
//   /tmp/fp8_kv_sim [kv_heads_simulated]   (all 8 by default: ~2 minutes; output in the README)
// It draws the problem's values (q, K uniform in [-2, 2), V in [-1, 1), rounded to BF16; the
// decode shape's 32 cache lengths 8192..32768) for some of the 8 KV heads and computes, per output
// element, the float64 answer, the BF16 kernels' rounding (P packed to BF16 before P·V, output
// rounded to BF16) and the FP8 kernel's (K and V stored as e4m3 with one scale per KV head, P in
// FP16, output rounded to BF16); it prints the relative RMS error of each against float64 and the
// largest |fp8 - bf16| beyond rtol·|bf16|, the atol the pair's element-wise check needs.
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "common/attention_shapes.cuh"
#include "common/fp8_e4m3.cuh"

namespace {

double bf16(double x) {
  return static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(x))));
}
double f16(double x) {
  return static_cast<double>(__half2float(__float2half_rn(static_cast<float>(x))));
}

}  // namespace

int main(int argc, char** argv) {
  const aisp::attention::DecodeShape shape;
  const int heads_simulated = argc > 1 ? std::atoi(argv[1]) : shape.kv_heads;
  const int d = shape.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const double rtol = 8e-3;
  std::mt19937_64 random(12345);
  std::uniform_real_distribution<double> wide(-2.0, 2.0), narrow(-1.0, 1.0);
  double err_fp8 = 0, err_bf16 = 0, norm = 0, worst_excess = 0, worst_abs = 0;
  long long elements = 0;
  for (int kvh = 0; kvh < heads_simulated; ++kvh) {
    std::vector<std::vector<double>> k(static_cast<std::size_t>(shape.batch)),
        v(static_cast<std::size_t>(shape.batch));
    double k_amax = 0, v_amax = 0;
    for (int b = 0; b < shape.batch; ++b) {
      const std::size_t n = static_cast<std::size_t>(shape.cache_length(b)) * d;
      k[b].resize(n);
      v[b].resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        k[b][i] = bf16(wide(random));
        v[b][i] = bf16(narrow(random));
        k_amax = std::max(k_amax, std::fabs(k[b][i]));
        v_amax = std::max(v_amax, std::fabs(v[b][i]));
      }
    }
    const double k_quant = aisp::common::kE4m3Max / k_amax,
                 v_quant = aisp::common::kE4m3Max / v_amax;
    for (int b = 0; b < shape.batch; ++b) {
      const int length = shape.cache_length(b);
      std::vector<double> kq(k[b].size()), vq(v[b].size());
      for (std::size_t i = 0; i < kq.size(); ++i) {
        kq[i] = aisp::common::e4m3_to_double(
                    aisp::common::double_to_e4m3(static_cast<float>(k[b][i] * k_quant))) /
                k_quant;
        vq[i] = aisp::common::e4m3_to_double(
                    aisp::common::double_to_e4m3(static_cast<float>(v[b][i] * v_quant))) /
                v_quant;
      }
      for (int h = 0; h < shape.group(); ++h) {
        std::vector<double> q(static_cast<std::size_t>(d));
        for (double& x : q)
          x = bf16(wide(random));
        std::vector<double> s(static_cast<std::size_t>(length)),
            sq(static_cast<std::size_t>(length));
        double m = -INFINITY, mq = -INFINITY;
        for (int j = 0; j < length; ++j) {
          double dot = 0, dotq = 0;
          for (int x = 0; x < d; ++x) {
            dot += q[x] * k[b][static_cast<std::size_t>(j) * d + x];
            dotq += q[x] * kq[static_cast<std::size_t>(j) * d + x];
          }
          s[j] = dot * scale;
          sq[j] = dotq * scale;
          m = std::max(m, s[j]);
          mq = std::max(mq, sq[j]);
        }
        double sum = 0, sumq = 0;
        std::vector<double> o(d, 0.0), ob(d, 0.0), oq(d, 0.0);
        for (int j = 0; j < length; ++j) {
          const double p = std::exp(s[j] - m), pq = std::exp(sq[j] - mq);
          sum += p;
          sumq += pq;
          const double pb = bf16(p), ph = f16(pq);
          for (int x = 0; x < d; ++x) {
            o[x] += p * v[b][static_cast<std::size_t>(j) * d + x];
            ob[x] += pb * v[b][static_cast<std::size_t>(j) * d + x];
            oq[x] += ph * vq[static_cast<std::size_t>(j) * d + x];
          }
        }
        for (int x = 0; x < d; ++x) {
          const double exact = o[x] / sum, base = bf16(ob[x] / sum), fp8 = bf16(oq[x] / sumq);
          err_fp8 += (fp8 - exact) * (fp8 - exact);
          err_bf16 += (base - exact) * (base - exact);
          norm += exact * exact;
          worst_abs = std::max(worst_abs, std::fabs(fp8 - base));
          worst_excess = std::max(worst_excess, std::fabs(fp8 - base) - rtol * std::fabs(base));
          ++elements;
        }
      }
    }
    std::printf("kv head %d: K amax %.4f, V amax %.4f\n", kvh, k_amax, v_amax);
  }
  std::printf(
      "%lld output elements: relative RMS vs float64: fp8 %.4f, bf16 %.5f; output RMS %.3e\n",
      elements, std::sqrt(err_fp8 / norm), std::sqrt(err_bf16 / norm),
      std::sqrt(norm / static_cast<double>(elements)));
  std::printf("largest |fp8 - bf16| %.3e; largest |fp8 - bf16| - %.0e*|bf16| %.3e\n", worst_abs,
              rtol, worst_excess);
  return 0;
}
