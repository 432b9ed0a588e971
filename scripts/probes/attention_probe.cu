// Probe (not part of the build): checks and times every ch18 attention kernel outside the
// harness, in seconds of GPU time: each variant against the unfused cuBLAS baseline (forward) or
// the per-head kernel (decode), and all against float64 rows computed on the host; times are CUDA
// event medians of 10 runs after 2 warm-ups. It links the chapter's kernel files themselves, so
// what it checks is what the pairs run. Groups run one at a time (a hang costs one group):
//   nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -DAISP_ATTENTION_PROBE_SWEEP \
//     -I include -Ichapters \
//     scripts/probes/attention_probe.cu chapters/ch18_attention/{row_softmax,flash_attention_fa2,\
//     flash_attention_fa2_tma,flash_attention_fa3,decode_attention}.cu \
//     chapters/ch19_low_precision/decode_attention_fp8_kv_kernel.cu \
//     chapters/common/attention_kv_cache.cu chapters/common/attention_kv_fp8.cu \
//     chapters/common/attention_cudnn_sdpa.cpp -lcublas -ldl -o attention_probe
//   ./attention_probe decode | forward | fa3 | masks
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch18_attention/attention_kernels.cuh"
#include "ch19_low_precision/decode_attention_fp8_kv_kernel.cuh"
#include "common/attention_cudnn_sdpa.hpp"
#include "common/attention_kv_cache.cuh"
#include "common/attention_kv_fp8.cuh"

#include "probe_check.hpp"

using aisp::attention::DecodeShape;
using aisp::attention::ForwardShape;
using aisp::attention::MaskKind;
using namespace aisp::ch18;

namespace {

__device__ __forceinline__ unsigned long long mix(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

__global__ void fill_uniform(__nv_bfloat16* p, size_t n, unsigned long long seed, float lo,
                             float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const double u =
        double(mix(seed * 0x9E3779B97F4A7C15ULL + i) >> 11) * (1.0 / 9007199254740992.0);
    p[i] = __float2bfloat16_rn(float(lo + (hi - lo) * u));
  }
}

// Reads n 16-byte words, the pure-read ceiling for decode (4 GiB buffer, one sum per block).
__global__ void read_only(const uint4* p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u)
    sink[0] = acc;
}

__nv_bfloat16* device_random(size_t n, unsigned long long seed, float lo, float hi) {
  __nv_bfloat16* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(__nv_bfloat16)));
  fill_uniform<<<2048, 256>>>(p, n, seed, lo, hi);
  CHECK(cudaGetLastError());
  return p;
}

std::vector<float> to_host(const __nv_bfloat16* d, size_t n) {
  std::vector<__nv_bfloat16> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  std::vector<float> f(n);
  for (size_t i = 0; i < n; ++i)
    f[i] = __bfloat162float(h[i]);
  return f;
}

double median_ms(const std::function<void()>& run, int reps = 10) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i)
    run();
  CHECK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    run();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Compare {
  double max_abs = 0, worst_excess = -1e9;
  size_t fails = 0, nonfinite = 0;
};

// allclose(actual, expected) with the pairs' tolerance, BF16's default (rtol 8e-3, atol 1e-3);
// `excess` is the largest |d| − rtol·|expected|, the atol a pair would need.
Compare compare(const std::vector<float>& actual, const std::vector<float>& expected,
                double atol = 1e-3) {
  Compare c;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (!std::isfinite(actual[i])) {
      ++c.nonfinite;
      continue;
    }
    const double d = std::fabs(double(actual[i]) - expected[i]);
    c.max_abs = std::max(c.max_abs, d);
    const double excess = d - 8e-3 * std::fabs(expected[i]);
    c.worst_excess = std::max(c.worst_excess, excess);
    if (d > atol + 8e-3 * std::fabs(expected[i]))
      ++c.fails;
  }
  return c;
}

// Float64 attention rows on the host; returns relative RMS error of `actual` over those rows.
double reference_error(const ForwardShape& s, const std::vector<float>& q,
                       const std::vector<float>& k, const std::vector<float>& v,
                       const std::vector<float>& actual, const std::vector<size_t>& rows) {
  const size_t d = s.head_dim, S = s.seq;
  double err = 0, norm = 0;
  for (size_t row : rows) {
    const size_t head = row / S;
    const int i = int(row % S);
    const int first = s.first_key(i), last = s.last_key(i);
    std::vector<double> sc(size_t(last - first + 1));
    double mx = -INFINITY;
    for (int j = first; j <= last; ++j) {
      double dot = 0;
      for (size_t x = 0; x < d; ++x)
        dot += double(q[row * d + x]) * k[(head * S + j) * d + x];
      sc[size_t(j - first)] = dot / std::sqrt(double(d));
      mx = std::max(mx, sc[size_t(j - first)]);
    }
    double sum = 0;
    for (double& x : sc)
      sum += (x = std::exp(x - mx));
    for (size_t x = 0; x < d; ++x) {
      double o = 0;
      for (int j = first; j <= last; ++j)
        o += sc[size_t(j - first)] / sum * v[(head * S + j) * d + x];
      const double e = actual[row * d + x] - o;
      err += e * e;
      norm += o * o;
    }
  }
  return std::sqrt(err / norm);
}

void report(const char* name, double ms, double flops, double bytes, const Compare* c,
            double ref_err) {
  std::printf("%-34s %9.3f ms %8.1f TFLOP/s %8.1f GB/s", name, ms, flops / ms * 1e-9,
              bytes / ms * 1e-6);
  if (c != nullptr)
    std::printf("  vs baseline: max|d| %.2e excess %.2e fails %zu nonfinite %zu", c->max_abs,
                c->worst_excess, c->fails, c->nonfinite);
  if (ref_err >= 0)
    std::printf("  ref rel-RMS %.2e", ref_err);
  std::printf("\n");
  std::fflush(stdout);
}

void run_forward(const ForwardShape& s, bool with_fa3_only, bool masks) {
  const size_t n = s.elements();
  __nv_bfloat16* q = device_random(n, 1, -2, 2);
  __nv_bfloat16* k = device_random(n, 2, -2, 2);
  __nv_bfloat16* v = device_random(n, 3, -1, 1);
  __nv_bfloat16* o = nullptr;
  CHECK(cudaMalloc(&o, n * 2));
  const ForwardTensors t{q, k, v, o};
  const auto hq = to_host(q, n), hk = to_host(k, n), hv = to_host(v, n);
  std::vector<size_t> rows;
  for (size_t r = 0; r < 24; ++r)
    rows.push_back((r * 2654435761ull + 17) % (n / s.head_dim));
  rows.push_back(0);
  rows.push_back(n / s.head_dim - 1);
  std::printf("\n== forward B %d H %d S %d D %d mask %s window %d: %.1f GFLOP\n", s.batch, s.heads,
              s.seq, s.head_dim, aisp::attention::mask_name(s.mask), s.window, s.flops() * 1e-9);
  std::vector<float> baseline;
  const auto check_variant = [&](const char* name, const std::function<void()>& run) {
    CHECK(cudaMemset(o, 0xff, n * 2));
    run();
    CHECK(cudaDeviceSynchronize());
    const auto out = to_host(o, n);
    Compare c;
    const bool have = !baseline.empty();
    if (have)
      c = compare(out, baseline);
    const double ref = reference_error(s, hq, hk, hv, out, rows);
    const double ms = median_ms(run);
    report(name, ms, s.flops(), 8.0 * n, have ? &c : nullptr, ref);
    return out;
  };
  if (!with_fa3_only && s.mask == MaskKind::none) {
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
      std::exit(1);
    const size_t sc = size_t(s.batch) * s.heads * size_t(s.seq) * s.seq;
    float* scores;
    __nv_bfloat16* probs;
    CHECK(cudaMalloc(&scores, sc * 4));
    CHECK(cudaMalloc(&probs, sc * 2));
    const long long S = s.seq, D = s.head_dim;
    const float scale = s.softmax_scale(), one = 1, zero = 0;
    baseline = check_variant("unfused cuBLAS+softmax", [&] {
      cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, s.seq, s.seq, s.head_dim, &scale, k,
                                 CUDA_R_16BF, s.head_dim, S * D, q, CUDA_R_16BF, s.head_dim, S * D,
                                 &zero, scores, CUDA_R_32F, s.seq, S * S, s.batch * s.heads,
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      launch_row_softmax(scores, probs, (long long)s.batch * s.heads * S, s.seq, nullptr);
      cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.head_dim, s.seq, s.seq, &one, v,
                                 CUDA_R_16BF, s.head_dim, S * D, probs, CUDA_R_16BF, s.seq, S * S,
                                 &zero, o, CUDA_R_16BF, s.head_dim, S * D, s.batch * s.heads,
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    CHECK(cudaFree(scores));
    CHECK(cudaFree(probs));
    cublasDestroy(h);
    std::printf("cuDNN: %s\n", aisp::attention::cudnn_availability().c_str());
    try {
      aisp::attention::CudnnSdpa sdpa({s.batch, s.heads, s.seq, s.head_dim, s.softmax_scale()},
                                      nullptr);
      void* scratch = nullptr;
      CHECK(cudaMalloc(&scratch, std::max<size_t>(256, sdpa.scratch_bytes())));
      sdpa.bind(q, k, v, o, scratch);
      std::printf("cuDNN plan: %s\n", sdpa.description().c_str());
      check_variant("cudnn sdpa", [&] { sdpa.run(); });
      CHECK(cudaFree(scratch));
    } catch (const std::exception& e) {
      std::printf("cuDNN SDPA failed: %s\n", e.what());
    }
    check_variant("fa2 cp.async", [&] { launch_flash_fa2(s, t, MaskedTiles::skip, nullptr); });
    const FlashTmaMaps maps = make_flash_tma_maps(s, t);
    check_variant("fa2 tma", [&] { launch_flash_fa2_tma(s, maps, o, MaskedTiles::skip, nullptr); });
    if (s.head_dim == 128) {
      check_variant("fa2 tma, rolled Q.K^T loop (rung 2b)",
                    [&] { launch_flash_fa2_tma_rolled(s, maps, o, nullptr); });
      // The register-budget sweep behind rung 2b (keys per softmax pass, Q.K^T k-loop unroll;
      // ptxas -v on sm_90a: spill stores 136 B at 64/8, 48 at 64/2, 256 at 32/8, else 0).
      for (const auto [keys, unroll] :
           {std::pair{64, 8}, std::pair{64, 2}, std::pair{64, 1}, std::pair{32, 8},
            std::pair{32, 4}, std::pair{32, 2}, std::pair{32, 1}}) {
        const std::string name = "  sweep: fa2 tma, " + std::to_string(keys) +
                                 "-key passes, unroll " + std::to_string(unroll);
        check_variant(name.c_str(), [&, keys = keys, unroll = unroll] {
          if (!launch_flash_fa2_tma_config(s, maps, o, keys, unroll, nullptr))
            throw std::runtime_error("fa2 tma sweep: configuration not built");
        });
      }
    }
    // The wgmma rungs in the same process as cuDNN, for the × cuDNN ratios.
    std::printf("fa3 built for sm_90a: %d\n", int(flash_fa3_built_for_sm90a()));
    const FlashWgmmaMaps wgmma_maps = make_flash_wgmma_maps(s, t);
    check_variant("fa3 wgmma",
                  [&] { launch_flash_fa3(s, wgmma_maps, o, MaskedTiles::skip, nullptr); });
    check_variant("fa3 wgmma, ping-pong consumers",
                  [&] { launch_flash_fa3_pingpong(s, wgmma_maps, o, nullptr); });
  }
  if (with_fa3_only) {
    std::printf("fa3 built for sm_90a: %d\n", int(flash_fa3_built_for_sm90a()));
    const FlashWgmmaMaps maps = make_flash_wgmma_maps(s, t);
    if (masks) {
      baseline = check_variant(
          "fa3 dense masked", [&] { launch_flash_fa3(s, maps, o, MaskedTiles::compute, nullptr); });
      check_variant("fa3 skip masked tiles",
                    [&] { launch_flash_fa3(s, maps, o, MaskedTiles::skip, nullptr); });
      check_variant("fa2 dense masked",
                    [&] { launch_flash_fa2(s, t, MaskedTiles::compute, nullptr); });
      check_variant("fa2 skip masked tiles",
                    [&] { launch_flash_fa2(s, t, MaskedTiles::skip, nullptr); });
    } else {
      baseline = check_variant("fa2 cp.async (reference for fa3)",
                               [&] { launch_flash_fa2(s, t, MaskedTiles::skip, nullptr); });
      check_variant("fa3 wgmma", [&] { launch_flash_fa3(s, maps, o, MaskedTiles::skip, nullptr); });
      // The ping-pong rung (D 64 in the suite; D 128 only in this probe build).
      check_variant("fa3 wgmma, ping-pong consumers",
                    [&] { launch_flash_fa3_pingpong(s, maps, o, nullptr); });
    }
  }
  CHECK(cudaFree(q));
  CHECK(cudaFree(k));
  CHECK(cudaFree(v));
  CHECK(cudaFree(o));
}

void run_decode() {
  const DecodeShape s;
  std::printf("\n== decode B %d Hq %d Hkv %d D %d lengths %d..%d: %lld tokens, KV %.3f GB\n",
              s.batch, s.q_heads, s.kv_heads, s.head_dim, s.min_length, s.max_length,
              s.total_tokens(), s.kv_bytes() * 1e-9);
  {
    const size_t words = (size_t(4) << 30) / 16;
    uint4* buf;
    unsigned* sink;
    CHECK(cudaMalloc(&buf, words * 16));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemset(buf, 1, words * 16));
    const double ms = median_ms([&] { read_only<<<132 * 8, 512>>>(buf, words, sink); });
    std::printf("pure read of 4 GiB: %.3f ms = %.1f GB/s\n", ms, words * 16 / ms * 1e-6);
    CHECK(cudaFree(buf));
    CHECK(cudaFree(sink));
  }
  __nv_bfloat16* q = device_random(s.q_elements(), 11, -2, 2);
  __nv_bfloat16* k = device_random(s.cache_elements(), 12, -2, 2);
  __nv_bfloat16* v = device_random(s.cache_elements(), 13, -1, 1);
  std::vector<int> lengths(s.batch);
  for (int b = 0; b < s.batch; ++b)
    lengths[b] = s.cache_length(b);
  int* d_lengths;
  CHECK(cudaMalloc(&d_lengths, s.batch * 4));
  CHECK(cudaMemcpy(d_lengths, lengths.data(), s.batch * 4, cudaMemcpyHostToDevice));
  __nv_bfloat16* o;
  float *partial_o, *partial_lse;
  CHECK(cudaMalloc(&o, s.q_elements() * 2));
  CHECK(cudaMalloc(&partial_o, decode_partial_floats(s) * 4));
  CHECK(cudaMalloc(&partial_lse, decode_partial_rows(s) * 4));
  DecodeTensors t;
  t.q = q;
  t.k = k;
  t.v = v;
  t.cache_lengths = d_lengths;
  t.o = o;
  t.partial_o = partial_o;
  t.partial_lse = partial_lse;

  // Host reference for a few (sequence, head) rows.
  const auto hq = to_host(q, s.q_elements());
  std::vector<std::pair<int, int>> rows = {{0, 0}, {0, 5}, {7, 13}, {31, 31}, {20, 2}, {31, 8}};
  std::vector<std::vector<double>> ref;
  for (auto [b, h] : rows) {
    const int kvh = h / s.group(), len = s.cache_length(b);
    const size_t base = ((size_t(b) * s.kv_heads + kvh) * s.max_length) * s.head_dim;
    const auto hk = to_host(k + base, size_t(len) * s.head_dim);
    const auto hv = to_host(v + base, size_t(len) * s.head_dim);
    std::vector<double> sc(len);
    double mx = -INFINITY;
    for (int j = 0; j < len; ++j) {
      double dot = 0;
      for (int x = 0; x < s.head_dim; ++x)
        dot += double(hq[(size_t(b) * s.q_heads + h) * s.head_dim + x]) *
               hk[size_t(j) * s.head_dim + x];
      sc[j] = dot / std::sqrt(double(s.head_dim));
      mx = std::max(mx, sc[j]);
    }
    double sum = 0;
    for (double& x : sc)
      sum += (x = std::exp(x - mx));
    std::vector<double> out(s.head_dim, 0.0);
    for (int j = 0; j < len; ++j)
      for (int x = 0; x < s.head_dim; ++x)
        out[x] += sc[j] / sum * hv[size_t(j) * s.head_dim + x];
    ref.push_back(out);
  }
  std::vector<float> baseline;
  double atol = 1e-3;  // the pairs' tolerance against their baseline (FP8 cache: 5e-3)
  double bytes = s.kv_bytes();
  const auto check_variant = [&](const char* name, const std::function<void()>& run) {
    CHECK(cudaMemset(o, 0xff, s.q_elements() * 2));
    run();
    CHECK(cudaDeviceSynchronize());
    const auto out = to_host(o, s.q_elements());
    Compare c;
    const bool have = !baseline.empty();
    if (have)
      c = compare(out, baseline, atol);
    double err = 0, norm = 0;
    for (size_t r = 0; r < rows.size(); ++r)
      for (int x = 0; x < s.head_dim; ++x) {
        const double a = out[(size_t(rows[r].first) * s.q_heads + rows[r].second) * s.head_dim + x];
        err += (a - ref[r][x]) * (a - ref[r][x]);
        norm += ref[r][x] * ref[r][x];
      }
    const double ms = median_ms(run);
    report(name, ms, s.flops(), bytes, have ? &c : nullptr, std::sqrt(err / norm));
    return out;
  };
  baseline =
      check_variant("decode per head (baseline)", [&] { launch_decode_per_head(s, t, nullptr); });
  check_variant("decode split-K contiguous", [&] { launch_decode_split_k(s, t, 0, nullptr); });
  for (int page : {16, 64}) {
    const auto layout = aisp::attention::paged_layout(s, page);
    const auto table = aisp::attention::scattered_block_table(s, layout, 0x5eed);
    int* d_table;
    __nv_bfloat16 *kp, *vp;
    CHECK(cudaMalloc(&d_table, table.size() * 4));
    CHECK(cudaMemcpy(d_table, table.data(), table.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&kp, layout.pool_elements() * 2));
    CHECK(cudaMalloc(&vp, layout.pool_elements() * 2));
    aisp::attention::launch_copy_cache_into_pages(k, kp, d_table, s, layout, nullptr);
    aisp::attention::launch_copy_cache_into_pages(v, vp, d_table, s, layout, nullptr);
    CHECK(cudaDeviceSynchronize());
    DecodeTensors tp = t;
    tp.k = kp;
    tp.v = vp;
    tp.block_table = d_table;
    const std::string name = "decode split-K paged " + std::to_string(page);
    check_variant(name.c_str(), [&] { launch_decode_split_k(s, tp, page, nullptr); });
    CHECK(cudaFree(d_table));
    CHECK(cudaFree(kp));
    CHECK(cudaFree(vp));
  }

  // Chapter 19's decode_attention_fp8_kv: the key-major kernel over the BF16 cache, then over an
  // e4m3 cache with one scale per KV head, both against chapter 18's split-K kernel (the pair's
  // baseline). GB/s are on the bytes each reads (BF16 2.684 GB, e4m3 1.342 GB).
  std::printf("\n== decode_attention_fp8_kv (ch19): baseline = split-K over the BF16 cache\n");
  baseline =
      check_variant("bf16 cache, split-K (ch18)", [&] { launch_decode_split_k(s, t, 0, nullptr); });
  check_variant("bf16 cache, key-major",
                [&] { aisp::ch19::launch_decode_key_major_bf16(s, t, nullptr); });
  {
    std::uint8_t *k8, *v8;
    unsigned int* factors;  // [0, Hkv): K, [Hkv, 2 Hkv): V; amax bits, then dequant floats
    CHECK(cudaMalloc(&k8, s.cache_elements()));
    CHECK(cudaMalloc(&v8, s.cache_elements()));
    CHECK(cudaMalloc(&factors, 2 * s.kv_heads * 4));
    CHECK(cudaMemset(factors, 0, 2 * s.kv_heads * 4));
    CHECK(aisp::attention::launch_kv_head_amax(k, d_lengths, s, factors, nullptr));
    CHECK(aisp::attention::launch_kv_head_amax(v, d_lengths, s, factors + s.kv_heads, nullptr));
    CHECK(aisp::attention::launch_quantize_kv_e4m3(k, d_lengths, s, factors, k8, nullptr));
    CHECK(aisp::attention::launch_quantize_kv_e4m3(v, d_lengths, s, factors + s.kv_heads, v8,
                                                   nullptr));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> dequant(2 * s.kv_heads);
    CHECK(cudaMemcpy(dequant.data(), factors, dequant.size() * 4, cudaMemcpyDeviceToHost));
    std::printf("dequant factors: K head 0 %.6f (amax %.4f), V head 0 %.6f (amax %.4f)\n",
                dequant[0], dequant[0] * 448, dequant[s.kv_heads], dequant[s.kv_heads] * 448);
    atol = 5e-3;
    bytes = s.kv_bytes() / 2;
    const float* fk = reinterpret_cast<const float*>(factors);
    check_variant("e4m3 cache, key-major (GB/s on 1 B)", [&] {
      aisp::ch19::launch_decode_key_major_e4m3(s, t, k8, v8, fk, fk + s.kv_heads, nullptr);
    });
    CHECK(cudaFree(k8));
    CHECK(cudaFree(v8));
    CHECK(cudaFree(factors));
  }
  CHECK(cudaFree(q));
  CHECK(cudaFree(k));
  CHECK(cudaFree(v));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string group = argc > 1 ? argv[1] : "forward";
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU: %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor);
  try {
    if (group == "decode")
      run_decode();
    if (group == "forward") {
      run_forward(ForwardShape{.head_dim = 128}, false, false);
      run_forward(ForwardShape{.head_dim = 64}, false, false);
    }
    if (group == "fa3") {
      run_forward(ForwardShape{.head_dim = 128}, true, false);
      run_forward(ForwardShape{.head_dim = 64}, true, false);
    }
    if (group == "masks") {
      run_forward(ForwardShape{.head_dim = 128, .mask = MaskKind::causal}, true, true);
      run_forward(ForwardShape{.head_dim = 128, .mask = MaskKind::sliding_window, .window = 1024},
                  true, true);
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  return 0;
}
