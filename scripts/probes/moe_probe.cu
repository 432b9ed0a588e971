// Probe (not part of the build): chapter 17's MoE layer outside the harness, for one GPU visit
// that answers what the pairs need to know before they are run:
//   1. check: every rung (per-token loop, expert loop + cuBLAS, sort + cublasGemmGroupedBatchedEx,
//      own grouped wgmma with the fused gather and SwiGLU, FP8 grouped, and the FP8 layer
//      replayed as a CUDA graph) and both routers on small layers — 1000 tokens (not a multiple
//      of the 128-row tile), hidden 512, intermediate 256; 8 experts top-2 and 64 top-8, uniform
//      and Zipf routing (so some experts get 0 or a handful of rows) — EVERY output element
//      against a float64 CPU reference, plus the routers' ids bit for bit;
//   2. time: the rungs at the pairs' sizes (8192 tokens, 8 experts top-2 × 11008 and 64 top-8 ×
//      2816; FP8 and BF16 grouped at 65536 tokens), median of a few calls, TFLOP/s on the routed
//      FLOPs (2·tokens·k·3·hidden·inter), each compared element by element with the BF16 grouped
//      rung and, on a few sampled tokens, with float64.
//   nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ichapters
//     scripts/probes/moe_probe.cu chapters/common/moe_routing.cu chapters/common/fp8_quantize.cu
//     chapters/ch17_moe/moe_token_loop_kernels.cu chapters/ch17_moe/moe_dispatch_kernels.cu
//     chapters/ch17_moe/moe_router_kernels.cu chapters/ch17_moe/moe_grouped_bf16_kernel.cu
//     chapters/ch17_moe/moe_grouped_fp8_kernel.cu -lcublas -o /tmp/moe_probe      (one line)
//   timeout 120 /tmp/moe_probe check
//   timeout 300 /tmp/moe_probe time
// Run it under `timeout`: a broken mbarrier protocol hangs instead of failing.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ch17_moe/moe_grouped_gemm.cuh"
#include "ch17_moe/moe_layer_kernels.cuh"
#include "ch17_moe/moe_router_kernels.cuh"
#include "common/fp8_quantize.cuh"
#include "common/moe_routing.cuh"
#include "common/moe_shape.hpp"

#include "probe_check.hpp"

#define CHECK_CUBLAS(call)                                                                         \
  do {                                                                                             \
    cublasStatus_t probe_status_ = (call);                                                         \
    if (probe_status_ != CUBLAS_STATUS_SUCCESS) {                                                  \
      std::fprintf(stderr, "%s:%d %s: cuBLAS status %d\n", __FILE__, __LINE__, #call,              \
                   static_cast<int>(probe_status_));                                               \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

using aisp::common::MoeRouting;
using aisp::common::MoeShape;
namespace ch17 = aisp::ch17;
namespace common = aisp::common;
using bf16 = __nv_bfloat16;

std::size_t n_of(long long a, long long b) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b);
}

__global__ void fill_uniform_bf16(bf16* x, std::size_t count, std::uint64_t seed, float lo,
                                  float hi) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);
    x[i] = __float2bfloat16(lo + (hi - lo) * u);
  }
}
__global__ void fill_uniform_f32(float* x, std::size_t count, std::uint64_t seed, float lo,
                                 float hi) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);
    x[i] = lo + (hi - lo) * u;
  }
}

template <class T>
T* device_alloc(std::size_t count) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T)));
  return p;
}
template <class T>
std::vector<T> to_host(const T* d, std::size_t count) {
  std::vector<T> h(count);
  CHECK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
double as_double(bf16 v) { return static_cast<double>(__bfloat162float(v)); }

// Every buffer a layer's rungs need, on the device; weights and inputs filled from a seed.
struct Layer {
  MoeShape s;
  bf16 *x, *x_cal, *w13, *w2, *y;
  float* logits;
  int *ids, *counts, *counts_host;
  float* weights;
  // sort
  int *iota, *sorted_experts, *sorted_rows, *offsets, *position;
  void* sort_temp;
  std::size_t sort_temp_bytes;
  // per-expert loop
  int *rows, *counters;
  bf16 *x_rows, *gate_up_rows, *h_rows, *out_rows;
  float* y_acc;
  // sorted / grouped
  bf16 *x_sorted, *gate_up_sorted, *h_sorted, *out_sorted, *h_token;
  void** pointers;
  const void** pointers_host;
  // fp8
  std::uint8_t *w13_q, *w2_q, *x_q, *h_q;
  float *w13_dequant, *w2_dequant, *x_quant, *x_dequant, *h_quant, *h_dequant, *partials;
  ch17::MoeGroupedGemmLaunch gate_up_bf16, down_bf16, gate_up_fp8, down_fp8;
  cublasHandle_t cublas;
  cudaStream_t stream;

  Layer(const MoeShape& shape, std::uint64_t seed, const cudaDeviceProp& device) : s(shape) {
    CHECK(cudaStreamCreate(&stream));
    CHECK_CUBLAS(cublasCreate(&cublas));
    CHECK_CUBLAS(cublasSetStream(cublas, stream));
    const long long A = s.assignments();
    x = device_alloc<bf16>(n_of(s.tokens, s.hidden));
    x_cal = device_alloc<bf16>(n_of(s.tokens, s.hidden));
    w13 = device_alloc<bf16>(n_of(s.experts, 2ll * s.intermediate * s.hidden));
    w2 = device_alloc<bf16>(n_of(s.experts, 1ll * s.hidden * s.intermediate));
    y = device_alloc<bf16>(n_of(s.tokens, s.hidden));
    logits = device_alloc<float>(n_of(s.tokens, s.experts));
    ids = device_alloc<int>(A);
    weights = device_alloc<float>(A);
    counts = device_alloc<int>(s.experts);
    CHECK(cudaMallocHost(&counts_host, sizeof(int) * s.experts));
    iota = device_alloc<int>(A);
    sorted_experts = device_alloc<int>(A);
    sorted_rows = device_alloc<int>(A);
    offsets = device_alloc<int>(s.experts + 1);
    position = device_alloc<int>(A);
    sort_temp_bytes = common::moe_sort_temp_bytes(static_cast<int>(A), s.experts);
    sort_temp = device_alloc<std::uint8_t>(sort_temp_bytes);
    rows = device_alloc<int>(s.tokens);
    counters = device_alloc<int>(s.experts);
    x_rows = device_alloc<bf16>(n_of(s.tokens, s.hidden));
    gate_up_rows = device_alloc<bf16>(n_of(s.tokens, 2 * s.intermediate));
    h_rows = device_alloc<bf16>(n_of(s.tokens, s.intermediate));
    out_rows = device_alloc<bf16>(n_of(s.tokens, s.hidden));
    y_acc = device_alloc<float>(n_of(s.tokens, s.hidden));
    x_sorted = device_alloc<bf16>(n_of(A, s.hidden));
    gate_up_sorted = device_alloc<bf16>(n_of(A, 2 * s.intermediate));
    h_sorted = device_alloc<bf16>(n_of(A, s.intermediate));
    out_sorted = device_alloc<bf16>(n_of(A, s.hidden));
    h_token = device_alloc<bf16>(n_of(s.top_k, s.intermediate));
    pointers = device_alloc<void*>(6 * s.experts);
    CHECK(cudaMallocHost(&pointers_host, sizeof(void*) * 6 * s.experts));
    w13_q = device_alloc<std::uint8_t>(n_of(s.experts, 2ll * s.intermediate * s.hidden));
    w2_q = device_alloc<std::uint8_t>(n_of(s.experts, 1ll * s.hidden * s.intermediate));
    x_q = device_alloc<std::uint8_t>(n_of(s.tokens, s.hidden));
    h_q = device_alloc<std::uint8_t>(n_of(A, s.intermediate));
    w13_dequant = device_alloc<float>(n_of(s.experts, 2 * s.intermediate));
    w2_dequant = device_alloc<float>(n_of(s.experts, s.hidden));
    x_quant = device_alloc<float>(1);
    x_dequant = device_alloc<float>(1);
    h_quant = device_alloc<float>(1);
    h_dequant = device_alloc<float>(1);
    partials = device_alloc<float>(common::kAbsmaxPartials);

    const float b13 = 1.0f / std::sqrt(static_cast<float>(s.hidden));
    const float b2 = 1.0f / std::sqrt(static_cast<float>(s.intermediate));
    fill_uniform_bf16<<<1024, 256, 0, stream>>>(x, n_of(s.tokens, s.hidden), seed ^ 1, -1, 1);
    fill_uniform_bf16<<<1024, 256, 0, stream>>>(x_cal, n_of(s.tokens, s.hidden), seed ^ 2, -1, 1);
    fill_uniform_bf16<<<4096, 256, 0, stream>>>(
        w13, n_of(s.experts, 2ll * s.intermediate * s.hidden), seed ^ 3, -b13, b13);
    fill_uniform_bf16<<<4096, 256, 0, stream>>>(
        w2, n_of(s.experts, 1ll * s.hidden * s.intermediate), seed ^ 4, -b2, b2);
    fill_uniform_f32<<<1024, 256, 0, stream>>>(logits, n_of(s.tokens, s.experts), seed ^ 5, 1e-6f,
                                               1.0f - 1e-6f);
    CHECK(cudaGetLastError());
    CHECK(common::launch_moe_logits_from_uniform(logits, s.tokens, s.experts, s.routing,
                                                 s.zipf_exponent, stream));
    CHECK(common::launch_moe_iota(iota, static_cast<int>(A), stream));
    constexpr auto kPerRow = common::Fp8ScaleGranularity::per_row;
    CHECK(common::launch_quantize_e4m3(w13, s.experts * 2 * s.intermediate, s.hidden, kPerRow,
                                       w13_q, w13_dequant, stream));
    CHECK(common::launch_quantize_e4m3(w2, s.experts * s.hidden, s.intermediate, kPerRow, w2_q,
                                       w2_dequant, stream));

    ch17::MoeGroupedGemmArgs g;
    g.a = x;
    g.a_rows = s.tokens;
    g.sorted_rows = sorted_rows;
    g.top_k = s.top_k;
    g.b = w13;
    g.expert_offsets = offsets;
    g.experts = s.experts;
    g.assignments = static_cast<int>(A);
    g.hidden = s.hidden;
    g.intermediate = s.intermediate;
    g.out = h_sorted;
    gate_up_bf16 = ch17::prepare_moe_gate_up_bf16(g, device);
    ch17::MoeGroupedGemmArgs d = g;
    d.a = h_sorted;
    d.a_rows = static_cast<int>(A);
    d.sorted_rows = nullptr;
    d.b = w2;
    d.out = out_sorted;
    down_bf16 = ch17::prepare_moe_down_bf16(d, device);
    ch17::MoeGroupedGemmArgs gq = g;
    gq.a = x_q;
    gq.b = w13_q;
    gq.out = h_q;
    gq.a_dequant = x_dequant;
    gq.b_dequant = w13_dequant;
    gq.out_quant = h_quant;
    gate_up_fp8 = ch17::prepare_moe_gate_up_fp8(gq, device);
    ch17::MoeGroupedGemmArgs dq = d;
    dq.a = h_q;
    dq.b = w2_q;
    dq.a_dequant = h_dequant;
    dq.b_dequant = w2_dequant;
    dq.out = out_sorted;
    down_fp8 = ch17::prepare_moe_down_fp8(dq, device);
    calibrate(device);
    CHECK(cudaStreamSynchronize(stream));
  }

  void route() {
    CHECK(common::launch_moe_route_fused(logits, s.tokens, s.experts, s.top_k, ids, weights, counts,
                                         stream));
  }
  void sort() {
    const int A = static_cast<int>(s.assignments());
    CHECK(common::launch_moe_sort_by_expert(ids, iota, A, s.experts, sort_temp, sort_temp_bytes,
                                            sorted_experts, sorted_rows, stream));
    CHECK(common::launch_moe_expert_offsets(counts, s.experts, offsets, stream));
    CHECK(common::launch_moe_inverse_permutation(sorted_rows, A, position, stream));
  }
  void combine() {
    CHECK(ch17::launch_combine_sorted(out_sorted, position, weights, s.tokens, s.top_k, s.hidden, y,
                                      stream));
  }

  void calibrate(const cudaDeviceProp& device) {
    CHECK(common::launch_absmax_partials_bf16(x_cal, n_of(s.tokens, s.hidden), partials, stream));
    CHECK(common::launch_e4m3_scales_from_partials(partials, common::kAbsmaxPartials, x_quant,
                                                   x_dequant, stream));
    route();
    sort();
    ch17::MoeGroupedGemmArgs g = gate_up_bf16.args;
    g.a = x_cal;
    const ch17::MoeGroupedGemmLaunch calibration = ch17::prepare_moe_gate_up_bf16(g, device);
    CHECK(ch17::launch_moe_gate_up_bf16(calibration, stream));
    CHECK(common::launch_absmax_partials_bf16(h_sorted, n_of(s.assignments(), s.intermediate),
                                              partials, stream));
    CHECK(common::launch_e4m3_scales_from_partials(partials, common::kAbsmaxPartials, h_quant,
                                                   h_dequant, stream));
  }

  // ---- the rungs (each the same sequence as its variant in moe_layer_rungs.hpp) ----
  void token_loop() {
    route();
    for (int t = 0; t < s.tokens; ++t) {
      const std::size_t slot = n_of(t, s.top_k), row = n_of(t, s.hidden);
      CHECK(ch17::launch_token_gate_up_swiglu(x + row, w13, ids + slot, s.top_k, s.hidden,
                                              s.intermediate, h_token, stream));
      CHECK(ch17::launch_token_down_combine(h_token, w2, ids + slot, weights + slot, s.top_k,
                                            s.hidden, s.intermediate, y + row, stream));
    }
  }

  static cublasStatus_t gemm_rows(cublasHandle_t handle, const bf16* a, int rows, int k,
                                  const bf16* w, int n, bf16* c) {
    const float alpha = 1.0f, beta = 0.0f;
    return cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, rows, k, &alpha, w, CUDA_R_16BF, k, a,
                        CUDA_R_16BF, k, &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT);
  }

  void expert_loop() {
    route();
    CHECK(cudaMemcpyAsync(counts_host, counts, sizeof(int) * s.experts, cudaMemcpyDeviceToHost,
                          stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemsetAsync(counters, 0, sizeof(int) * s.experts, stream));
    CHECK(cudaMemsetAsync(y_acc, 0, sizeof(float) * n_of(s.tokens, s.hidden), stream));
    for (int e = 0; e < s.experts; ++e) {
      const int n = counts_host[e];
      if (n == 0)
        continue;
      CHECK(ch17::launch_collect_expert_rows(ids, static_cast<int>(s.assignments()), e, rows,
                                             counters + e, stream));
      CHECK(ch17::launch_gather_token_rows(x, rows, n, s.top_k, s.hidden, x_rows, stream));
      CHECK_CUBLAS(gemm_rows(cublas, x_rows, n, s.hidden,
                             w13 + n_of(e, 2 * s.intermediate) * s.hidden, 2 * s.intermediate,
                             gate_up_rows));
      CHECK(ch17::launch_swiglu_rows(gate_up_rows, n, s.intermediate, h_rows, stream));
      CHECK_CUBLAS(gemm_rows(cublas, h_rows, n, s.intermediate,
                             w2 + n_of(e, s.hidden) * s.intermediate, s.hidden, out_rows));
      CHECK(ch17::launch_scatter_add_weighted(out_rows, rows, n, s.top_k, weights, s.hidden, y_acc,
                                              stream));
    }
    CHECK(ch17::launch_round_to_bf16(y_acc, n_of(s.tokens, s.hidden), y, stream));
  }

  void grouped_cublas() {
    route();
    sort();
    const int A = static_cast<int>(s.assignments());
    CHECK(ch17::launch_gather_token_rows(x, sorted_rows, A, s.top_k, s.hidden, x_sorted, stream));
    CHECK(cudaMemcpyAsync(counts_host, counts, sizeof(int) * s.experts, cudaMemcpyDeviceToHost,
                          stream));
    CHECK(cudaStreamSynchronize(stream));
    const std::size_t E = static_cast<std::size_t>(s.experts);
    std::vector<int> group_rows;
    std::size_t row0 = 0;
    for (int e = 0; e < s.experts; ++e) {
      const int r = counts_host[e];
      if (r > 0) {
        const std::size_t g = group_rows.size();
        pointers_host[0 * E + g] = w13 + n_of(e, 2 * s.intermediate) * s.hidden;
        pointers_host[1 * E + g] = x_sorted + row0 * s.hidden;
        pointers_host[2 * E + g] = gate_up_sorted + row0 * 2 * s.intermediate;
        pointers_host[3 * E + g] = w2 + n_of(e, s.hidden) * s.intermediate;
        pointers_host[4 * E + g] = h_sorted + row0 * s.intermediate;
        pointers_host[5 * E + g] = out_sorted + row0 * s.hidden;
        group_rows.push_back(r);
      }
      row0 += static_cast<std::size_t>(r);
    }
    CHECK(cudaMemcpyAsync(pointers, pointers_host, sizeof(void*) * 6 * E, cudaMemcpyHostToDevice,
                          stream));
    const int groups = static_cast<int>(group_rows.size());
    const auto grouped = [&](int n, int k, int first) {
      std::vector<cublasOperation_t> ta(groups, CUBLAS_OP_T), tb(groups, CUBLAS_OP_N);
      std::vector<int> m(groups, n), kk(groups, k), size(groups, 1);
      std::vector<float> alpha(groups, 1.0f), beta(groups, 0.0f);
      CHECK_CUBLAS(cublasGemmGroupedBatchedEx(
          cublas, ta.data(), tb.data(), m.data(), group_rows.data(), kk.data(), alpha.data(),
          const_cast<const void* const*>(pointers + first * E), CUDA_R_16BF, kk.data(),
          const_cast<const void* const*>(pointers + (first + 1) * E), CUDA_R_16BF, kk.data(),
          beta.data(), pointers + (first + 2) * E, CUDA_R_16BF, m.data(), groups, size.data(),
          CUBLAS_COMPUTE_32F));
    };
    grouped(2 * s.intermediate, s.hidden, 0);
    CHECK(ch17::launch_swiglu_rows(gate_up_sorted, A, s.intermediate, h_sorted, stream));
    grouped(s.hidden, s.intermediate, 3);
    combine();
  }

  void grouped_wgmma() {
    route();
    sort();
    CHECK(ch17::launch_moe_gate_up_bf16(gate_up_bf16, stream));
    CHECK(ch17::launch_moe_down_bf16(down_bf16, stream));
    combine();
  }

  void fp8() {
    route();
    sort();
    CHECK(common::launch_cast_bf16_to_e4m3(x, n_of(s.tokens, s.hidden), x_quant, x_q, stream));
    CHECK(ch17::launch_moe_gate_up_fp8(gate_up_fp8, stream));
    CHECK(ch17::launch_moe_down_fp8(down_fp8, stream));
    combine();
  }
};

// float64 y[t, :] of the layer from host copies (the same math as common/moe_reference.hpp).
struct HostLayer {
  MoeShape s;
  std::vector<bf16> x, w13, w2;
  std::vector<float> logits;

  explicit HostLayer(const Layer& d)
      : s(d.s), x(to_host(d.x, n_of(s.tokens, s.hidden))),
        w13(to_host(d.w13, n_of(s.experts, 2ll * s.intermediate * s.hidden))),
        w2(to_host(d.w2, n_of(s.experts, 1ll * s.hidden * s.intermediate))),
        logits(to_host(d.logits, n_of(s.tokens, s.experts))) {}

  std::vector<double> token(int t) const {
    std::vector<int> order(static_cast<std::size_t>(s.experts));
    for (int e = 0; e < s.experts; ++e)
      order[static_cast<std::size_t>(e)] = e;
    const float* l = logits.data() + n_of(t, s.experts);
    std::partial_sort(order.begin(), order.begin() + s.top_k, order.end(),
                      [&](int a, int b) { return l[a] > l[b] || (l[a] == l[b] && a < b); });
    std::vector<double> route_weight(static_cast<std::size_t>(s.top_k));
    double sum = 0;
    for (int j = 0; j < s.top_k; ++j) {
      route_weight[static_cast<std::size_t>(j)] =
          std::exp(static_cast<double>(l[order[static_cast<std::size_t>(j)]]) - l[order[0]]);
      sum += route_weight[static_cast<std::size_t>(j)];
    }
    std::vector<double> y(static_cast<std::size_t>(s.hidden), 0.0);
    std::vector<double> h(static_cast<std::size_t>(s.intermediate));
    const bf16* xt = x.data() + n_of(t, s.hidden);
    for (int j = 0; j < s.top_k; ++j) {
      const int e = order[static_cast<std::size_t>(j)];
      for (int i = 0; i < s.intermediate; ++i) {
        const bf16* g = w13.data() + (n_of(e, 2 * s.intermediate) + i) * s.hidden;
        const bf16* u = g + n_of(s.intermediate, s.hidden);
        double gs = 0, us = 0;
        for (int c = 0; c < s.hidden; ++c) {
          gs += as_double(xt[c]) * as_double(g[c]);
          us += as_double(xt[c]) * as_double(u[c]);
        }
        h[static_cast<std::size_t>(i)] = gs / (1 + std::exp(-gs)) * us;
      }
      const double weight = route_weight[static_cast<std::size_t>(j)] / sum;
      for (int c = 0; c < s.hidden; ++c) {
        const bf16* w2_row = w2.data() + (n_of(e, s.hidden) + c) * s.intermediate;
        double o = 0;
        for (int i = 0; i < s.intermediate; ++i)
          o += h[static_cast<std::size_t>(i)] * as_double(w2_row[i]);
        y[static_cast<std::size_t>(c)] += weight * o;
      }
    }
    return y;
  }
};

struct Comparison {
  double rel_rms = 0, max_abs = 0;
  long long beyond = 0;  // elements outside atol + rtol·|expected|
};

Comparison compare(const std::vector<double>& expected, const std::vector<double>& actual,
                   double rtol, double atol) {
  Comparison c;
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double d = actual[i] - expected[i];
    err += d * d;
    norm += expected[i] * expected[i];
    c.max_abs = std::max(c.max_abs, std::fabs(d));
    if (!(std::fabs(d) <= atol + rtol * std::fabs(expected[i])))
      ++c.beyond;
  }
  c.rel_rms = std::sqrt(err / std::max(norm, 1e-300));
  return c;
}

std::vector<double> y_as_double(const Layer& layer) {
  const std::vector<bf16> y = to_host(layer.y, n_of(layer.s.tokens, layer.s.hidden));
  std::vector<double> out(y.size());
  for (std::size_t i = 0; i < y.size(); ++i)
    out[i] = as_double(y[i]);
  return out;
}

float median_ms(const std::function<void()>& run, cudaStream_t stream, int iterations) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int i = 0; i < iterations; ++i) {
    CHECK(cudaEventRecord(start, stream));
    run();
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

struct Rung {
  const char* name;
  void (Layer::*run)();
  bool fp8;
};
const Rung kRungs[] = {{"token_loop", &Layer::token_loop, false},
                       {"expert_loop", &Layer::expert_loop, false},
                       {"grouped_cublas", &Layer::grouped_cublas, false},
                       {"grouped_wgmma", &Layer::grouped_wgmma, false},
                       {"fp8", &Layer::fp8, true}};

// The routers: fused vs three kernels, ids and counts bit for bit, weights to f32 rounding; the
// counts sum to tokens·k; sorted_rows is a permutation grouped by expert.
bool check_routers(Layer& layer) {
  const MoeShape& s = layer.s;
  const int A = static_cast<int>(s.assignments());
  int* ids2 = device_alloc<int>(A);
  int* counts2 = device_alloc<int>(s.experts);
  float* logits2 = device_alloc<float>(A);
  float* weights2 = device_alloc<float>(A);
  layer.route();
  layer.sort();
  CHECK(ch17::launch_router_topk(layer.logits, s.tokens, s.experts, s.top_k, ids2, logits2,
                                 layer.stream));
  CHECK(ch17::launch_router_softmax(logits2, s.tokens, s.top_k, weights2, layer.stream));
  CHECK(ch17::launch_router_histogram(ids2, A, s.experts, counts2, layer.stream));
  CHECK(cudaStreamSynchronize(layer.stream));
  const auto a_ids = to_host(layer.ids, A), b_ids = to_host(ids2, A);
  const auto a_counts = to_host(layer.counts, s.experts), b_counts = to_host(counts2, s.experts);
  const auto a_w = to_host(layer.weights, A), b_w = to_host(weights2, A);
  const auto sorted = to_host(layer.sorted_rows, A);
  const auto offsets = to_host(layer.offsets, s.experts + 1);
  bool ok = a_ids == b_ids && a_counts == b_counts;
  double max_w = 0;
  for (int i = 0; i < A; ++i)
    max_w = std::max(max_w, static_cast<double>(std::fabs(a_w[i] - b_w[i])));
  long long total = 0;
  int empty = 0, largest = 0;
  for (int c : a_counts) {
    total += c;
    empty += c == 0;
    largest = std::max(largest, c);
  }
  ok = ok && total == A && max_w < 1e-6 && offsets[0] == 0 && offsets[s.experts] == A;
  std::vector<int> seen(A, 0);
  for (int e = 0; e < s.experts && ok; ++e)
    for (int r = offsets[e]; r < offsets[e + 1]; ++r) {
      const int a = sorted[r];
      ok = ok && a >= 0 && a < A && a_ids[a] == e && ++seen[a] == 1;
    }
  std::printf("  routers: ids %s, counts %s (sum %lld, empty experts %d, largest %d), weights max "
              "diff %.2g, sort %s\n",
              a_ids == b_ids ? "equal" : "DIFFER", a_counts == b_counts ? "equal" : "DIFFER", total,
              empty, largest, max_w, ok ? "valid" : "INVALID");
  cudaFree(ids2);
  cudaFree(counts2);
  cudaFree(logits2);
  cudaFree(weights2);
  return ok;
}

int check(const cudaDeviceProp& device) {
  int failures = 0;
  const MoeShape shapes[] = {
      {1000, 512, 256, 8, 2, MoeRouting::uniform, 1.0},
      {1000, 512, 256, 8, 2, MoeRouting::zipf, 1.0},
      {1000, 512, 256, 64, 8, MoeRouting::uniform, 1.0},
      {1000, 512, 256, 64, 8, MoeRouting::zipf, 1.0},
      {37, 256, 128, 64, 8, MoeRouting::zipf, 1.0},  // many experts empty or tiny
  };
  for (const MoeShape& s : shapes) {
    std::printf("check: %d tokens, hidden %d, inter %d, %d experts top-%d, %s\n", s.tokens,
                s.hidden, s.intermediate, s.experts, s.top_k, s.routing_name().c_str());
    Layer layer(s, 0x5eedull + static_cast<std::uint64_t>(s.experts + s.tokens), device);
    failures += check_routers(layer) ? 0 : 1;
    const HostLayer host(layer);
    std::vector<double> expected;
    expected.reserve(n_of(s.tokens, s.hidden));
    for (int t = 0; t < s.tokens; ++t) {
      const std::vector<double> row = host.token(t);
      expected.insert(expected.end(), row.begin(), row.end());
    }
    for (const Rung& rung : kRungs) {
      CHECK(cudaMemset(layer.y, 0xFF, sizeof(bf16) * n_of(s.tokens, s.hidden)));  // NaN poison
      (layer.*rung.run)();
      CHECK(cudaStreamSynchronize(layer.stream));
      CHECK(cudaGetLastError());
      const Comparison c = compare(expected, y_as_double(layer), 1e-2, rung.fp8 ? 0.0125 : 1.5e-3);
      const double bound = rung.fp8 ? 0.09 : 0.01;
      const bool ok = c.rel_rms < bound && (rung.fp8 || c.beyond == 0) && std::isfinite(c.rel_rms);
      failures += ok ? 0 : 1;
      std::printf("  %-15s rel RMS vs float64 %.3e, max |diff| %.3e, %lld beyond tolerance: %s\n",
                  rung.name, c.rel_rms, c.max_abs, c.beyond, ok ? "ok" : "FAIL");
    }
  }
  std::printf("check: %s (%d failures)\n", failures == 0 ? "PASSED" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}

void time_shape(const MoeShape& s, const cudaDeviceProp& device, bool with_loops) {
  std::printf("time: %d tokens, hidden %d, inter %d, %d experts top-%d, %s (%.2f TFLOP routed)\n",
              s.tokens, s.hidden, s.intermediate, s.experts, s.top_k, s.routing_name().c_str(),
              s.routed_flops() * 1e-12);
  Layer layer(s, 0xabcdull, device);
  const HostLayer host(layer);
  const int sample_tokens[] = {0, s.tokens / 3, s.tokens - 1};
  std::vector<std::vector<double>> expected;
  for (int t : sample_tokens)
    expected.push_back(host.token(t));
  layer.grouped_wgmma();
  CHECK(cudaStreamSynchronize(layer.stream));
  const std::vector<double> bf16_grouped = y_as_double(layer);
  for (const Rung& rung : kRungs) {
    const bool loop = rung.run == &Layer::token_loop || rung.run == &Layer::expert_loop;
    if (loop && !with_loops)
      continue;
    const int iterations = rung.run == &Layer::token_loop ? 1 : 10;
    (layer.*rung.run)();  // warm-up
    CHECK(cudaStreamSynchronize(layer.stream));
    const float ms = median_ms([&] { (layer.*rung.run)(); }, layer.stream, iterations);
    CHECK(cudaGetLastError());
    const std::vector<double> y = y_as_double(layer);
    const Comparison vs_grouped = compare(bf16_grouped, y, 1e-2, rung.fp8 ? 0.0125 : 1.5e-3);
    double err = 0, norm = 0;
    for (std::size_t k = 0; k < expected.size(); ++k)
      for (int c = 0; c < s.hidden; ++c) {
        const double d = y[n_of(sample_tokens[k], s.hidden) + c] - expected[k][c];
        err += d * d;
        norm += expected[k][c] * expected[k][c];
      }
    std::printf("  %-15s %10.3f ms %8.1f TFLOP/s  vs bf16 grouped: max |diff| %.3e, %lld beyond "
                "tolerance; rel RMS vs float64 (3 tokens) %.3e\n",
                rung.name, ms, s.routed_flops() / (ms * 1e-3) * 1e-12, vs_grouped.max_abs,
                vs_grouped.beyond, std::sqrt(err / norm));
  }
  // Where the grouped rungs' time goes: each step alone (state left by a full run), median of 10.
  {
    const double a = static_cast<double>(s.assignments());
    const double gate_up_flops = 2.0 * a * 2.0 * s.intermediate * s.hidden;
    const double down_flops = 2.0 * a * s.hidden * s.intermediate;
    const auto step = [&](const char* name, const std::function<void()>& launch, double flops) {
      const float ms = median_ms(launch, layer.stream, 10);
      if (flops > 0)
        std::printf("    %-22s %9.3f ms %8.1f TFLOP/s\n", name, ms, flops / (ms * 1e-3) * 1e-12);
      else
        std::printf("    %-22s %9.3f ms\n", name, ms);
    };
    layer.fp8();
    CHECK(cudaStreamSynchronize(layer.stream));
    step(
        "route (fused)", [&] { layer.route(); }, 0);
    step(
        "sort + offsets + perm", [&] { layer.sort(); }, 0);
    step(
        "gate_up bf16 (fused)",
        [&] { CHECK(ch17::launch_moe_gate_up_bf16(layer.gate_up_bf16, layer.stream)); },
        gate_up_flops);
    step(
        "down bf16", [&] { CHECK(ch17::launch_moe_down_bf16(layer.down_bf16, layer.stream)); },
        down_flops);
    step(
        "x cast e4m3",
        [&] {
          CHECK(common::launch_cast_bf16_to_e4m3(layer.x, n_of(s.tokens, s.hidden), layer.x_quant,
                                                 layer.x_q, layer.stream));
        },
        0);
    step(
        "gate_up fp8 (fused)",
        [&] { CHECK(ch17::launch_moe_gate_up_fp8(layer.gate_up_fp8, layer.stream)); },
        gate_up_flops);
    step(
        "down fp8", [&] { CHECK(ch17::launch_moe_down_fp8(layer.down_fp8, layer.stream)); },
        down_flops);
    step(
        "combine", [&] { layer.combine(); }, 0);
    CHECK(cudaGetLastError());
  }
  // The FP8 layer as one CUDA graph.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  layer.fp8();
  CHECK(cudaStreamSynchronize(layer.stream));
  CHECK(cudaStreamBeginCapture(layer.stream, cudaStreamCaptureModeThreadLocal));
  layer.fp8();
  CHECK(cudaStreamEndCapture(layer.stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, layer.stream));
  CHECK(cudaStreamSynchronize(layer.stream));
  const float ms = median_ms([&] { CHECK(cudaGraphLaunch(exec, layer.stream)); }, layer.stream, 10);
  std::printf("  %-15s %10.3f ms %8.1f TFLOP/s\n", "fp8_graph", ms,
              s.routed_flops() / (ms * 1e-3) * 1e-12);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // under `timeout`, a hang still shows how far it got
  const std::string mode = argc > 1 ? argv[1] : "check";
  cudaDeviceProp device{};
  CHECK(cudaGetDeviceProperties(&device, 0));
  std::printf("%s, %d SMs\n", device.name, device.multiProcessorCount);
  if (mode == "check")
    return check(device);
  if (mode == "time") {
    time_shape(common::moe_e8_top2(8192, MoeRouting::uniform), device, true);
    time_shape(common::moe_e8_top2(8192, MoeRouting::zipf), device, false);
    time_shape(common::moe_e64_top8(8192, MoeRouting::uniform), device, false);
    time_shape(common::moe_e8_top2(65536, MoeRouting::uniform), device, false);
    return 0;
  }
  std::fprintf(stderr, "usage: %s check|time\n", argv[0]);
  return 2;
}
