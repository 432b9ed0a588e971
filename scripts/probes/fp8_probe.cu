// Probe (not part of the build): chapter 19's FP8 GEMM machinery outside the harness, for one GPU
// visit that answers what the pairs need to know:
//   1. which cuBLASLt FP8 e4m3 scale modes this GPU and cuBLASLt run at 8192³ (the heuristic's
//      answer, then cublasLtMatmul's status), how fast, and how accurate;
//   2. whether the hand-written block-scaled wgmma GEMM (cluster 1 and 2) is right and how fast;
//   3. whether the per-tensor quantizers (three kernels, and one cooperative kernel) agree.
// The data is built so that a wrong scale layout cannot hide: element (r, c) of A and of B is
// u · 2^(E(r) + G(r/128) + F(c/128)) with u uniform in [-1, 1) and E, G, F small integers hashed
// from the row, the 128-row block and the 128-column block. Every result is compared, on 512
// sampled elements, with two float64 references: from the bf16 inputs (the error a user sees:
// quantization included) and from the dequantized e4m3 operands the GEMM was given (the GEMM's
// own error: a layout or promotion bug shows here, quantization does not).
//   nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ichapters \
//     scripts/probes/fp8_probe.cu chapters/common/fp8_quantize.cu \
//     chapters/ch19_low_precision/gemm_fp8_block_scaled_kernel.cu -lcublasLt -o /tmp/fp8_probe
//   /tmp/fp8_probe [size]        (default 8192; size a multiple of 256)
// Run it under `timeout`: a broken mbarrier protocol hangs instead of failing.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ch19_low_precision/gemm_fp8_block_scaled_kernel.cuh"
#include "common/fp8_cublaslt_plan.hpp"
#include "common/fp8_e4m3.cuh"
#include "common/fp8_quantize.cuh"

#include "probe_check.hpp"

namespace {

using aisp::common::Fp8ScaleGranularity;
using aisp::common::Fp8ScaleLayout;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
int small_exponent(std::uint64_t key) { return static_cast<int>(mix(key) % 5) - 2; }  // -2..2

// rows × cols bf16 with the structured magnitudes described above.
std::vector<__nv_bfloat16> structured(int rows, int cols, std::uint64_t seed) {
  std::vector<__nv_bfloat16> x(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    const int er = small_exponent(seed ^ (0x100000000ull + r)) +
                   small_exponent(seed ^ (0x200000000ull + r / 128));
    for (int c = 0; c < cols; ++c) {
      const int e = er + small_exponent(seed ^ (0x300000000ull + c / 128));
      const double u =
          static_cast<double>(mix(seed * 0x1000003ull ^ (static_cast<std::uint64_t>(r) << 32 |
                                                         static_cast<std::uint64_t>(c))) >>
                              11) *
              0x1.0p-53 * 2.0 -
          1.0;
      x[static_cast<std::size_t>(r) * cols + c] = __double2bfloat16(std::ldexp(u, e));
    }
  }
  return x;
}

template <class F>
float median_ms(F&& run, int iterations) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i)
    run();
  std::vector<float> times;
  for (int i = 0; i < iterations; ++i) {
    CHECK(cudaEventRecord(start));
    run();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <class T>
std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

struct Operand {
  int rows = 0, cols = 0;
  std::vector<__nv_bfloat16> host;
  __nv_bfloat16* device = nullptr;
};

// One quantized copy of an operand, with host copies for the dequantized reference.
struct Quantized {
  Fp8ScaleLayout layout;
  std::uint8_t* q = nullptr;
  float* scales = nullptr;
  std::vector<std::uint8_t> host_q;
  std::vector<float> host_scales;
  double value(int r, int c) const {
    return aisp::common::e4m3_to_double(host_q[static_cast<std::size_t>(r) * layout.cols + c]) *
           host_scales[layout.index(r, c)];
  }
};

Quantized quantize(const Operand& x, Fp8ScaleGranularity g, float* partials, float* quant) {
  Quantized out;
  out.layout = Fp8ScaleLayout{g, x.rows, x.cols};
  const std::size_t count = static_cast<std::size_t>(x.rows) * x.cols;
  CHECK(cudaMalloc(&out.q, count));
  CHECK(cudaMalloc(&out.scales, out.layout.count() * sizeof(float)));
  if (g == Fp8ScaleGranularity::per_tensor)
    CHECK(aisp::common::launch_quantize_e4m3_per_tensor(x.device, count, partials, quant, out.q,
                                                        out.scales, nullptr));
  else
    CHECK(aisp::common::launch_quantize_e4m3(x.device, x.rows, x.cols, g, out.q, out.scales,
                                             nullptr));
  CHECK(cudaDeviceSynchronize());
  out.host_q = download(out.q, count);
  out.host_scales = download(out.scales, out.layout.count());
  return out;
}

struct Sample {
  int row, col;
  double exact;  // from the bf16 inputs
};

struct Errors {
  double vs_inputs = 0, vs_operands = 0, max_rel_vs_operands = 0;
};

Errors measure(const std::vector<Sample>& samples, const std::vector<__nv_bfloat16>& c, int n,
               const Quantized* qa, const Quantized* qb, int k) {
  double num_in = 0, den = 0, num_op = 0, den_op = 0, max_rel = 0;
  for (const Sample& s : samples) {
    const double got = __bfloat162float(c[static_cast<std::size_t>(s.row) * n + s.col]);
    num_in += (got - s.exact) * (got - s.exact);
    den += s.exact * s.exact;
    if (qa && qb) {
      double dq = 0, mag = 0;
      for (int p = 0; p < k; ++p) {
        const double term = qa->value(s.row, p) * qb->value(s.col, p);
        dq += term;
        mag += std::fabs(term);
      }
      num_op += (got - dq) * (got - dq);
      den_op += dq * dq;
      max_rel = std::max(max_rel, std::fabs(got - dq) / (mag + 1e-30));
    }
  }
  Errors e;
  e.vs_inputs = std::sqrt(num_in / den);
  e.vs_operands = qa ? std::sqrt(num_op / den_op) : 0;
  e.max_rel_vs_operands = max_rel;
  return e;
}

void print_row(const char* name, const std::string& status, double ms, double flops,
               const Errors& e) {
  if (ms > 0)
    std::printf("%-46s %-10s %8.3f ms %7.1f TFLOP/s  err(inputs) %.3e  err(operands) %.3e  "
                "max|d|/sum|ab| %.2e\n",
                name, status.c_str(), ms, flops / (ms * 1e-3) / 1e12, e.vs_inputs, e.vs_operands,
                e.max_rel_vs_operands);
  else
    std::printf("%-46s %s\n", name, status.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int size = argc > 1 ? std::atoi(argv[1]) : 8192;
  if (size <= 0 || size % 256 != 0) {
    std::fprintf(stderr, "size must be a positive multiple of 256\n");
    return 2;
  }
  const int m = size, n = size, k = size;
  const double flops = 2.0 * m * n * static_cast<double>(k);
  cudaDeviceProp device{};
  CHECK(cudaGetDeviceProperties(&device, 0));
  std::printf("device %s (sm_%d%d, %d SMs), cuBLASLt %zu, size %d\n", device.name, device.major,
              device.minor, device.multiProcessorCount, cublasLtGetVersion(), size);

  Operand a{m, k, structured(m, k, 0xA11CE), nullptr};
  Operand b{n, k, structured(n, k, 0xB0B), nullptr};
  for (Operand* x : {&a, &b}) {
    CHECK(cudaMalloc(&x->device, x->host.size() * 2));
    CHECK(cudaMemcpy(x->device, x->host.data(), x->host.size() * 2, cudaMemcpyHostToDevice));
  }
  __nv_bfloat16* c = nullptr;
  CHECK(cudaMalloc(&c, static_cast<std::size_t>(m) * n * 2));
  void* workspace = nullptr;
  const std::size_t workspace_limit = 32u << 20;
  CHECK(cudaMalloc(&workspace, workspace_limit));
  float *partials = nullptr, *quant = nullptr;
  CHECK(cudaMalloc(&partials, aisp::common::kAbsmaxPartials * sizeof(float)));
  CHECK(cudaMalloc(&quant, sizeof(float)));

  std::vector<Sample> samples;
  for (int i = 0; i < 512; ++i) {
    const int row = static_cast<int>(mix(i * 2 + 1) % m),
              col = static_cast<int>(mix(i * 2 + 2) % n);
    double exact = 0;
    for (int p = 0; p < k; ++p)
      exact +=
          static_cast<double>(__bfloat162float(a.host[static_cast<std::size_t>(row) * k + p])) *
          __bfloat162float(b.host[static_cast<std::size_t>(col) * k + p]);
    samples.push_back({row, col, exact});
  }
  const auto poison = [&] { CHECK(cudaMemset(c, 0xFF, static_cast<std::size_t>(m) * n * 2)); };
  const float alpha = 1.0f, beta = 0.0f;

  // BF16 reference time.
  {
    auto plan = aisp::common::CublasLtMatmulPlan::row_major_tn(m, n, k, CUDA_R_16BF, CUDA_R_16BF,
                                                               CUDA_R_16BF);
    plan.choose_algorithm(workspace_limit);
    poison();
    const auto run = [&] {
      if (plan.run(&alpha, a.device, b.device, &beta, c, c, workspace, workspace_limit, nullptr) !=
          CUBLAS_STATUS_SUCCESS)
        std::exit(3);
    };
    const float ms = median_ms(run, 20);
    print_row(
        "cuBLASLt BF16", "ok", ms, flops,
        measure(samples, download(c, static_cast<std::size_t>(m) * n), n, nullptr, nullptr, k));
  }

  // cuBLASLt FP8 e4m3 at every scale mode pair.
  struct Mode {
    const char* name;
    Fp8ScaleGranularity a, b;
    bool pointers;
  };
  const Mode modes[] = {
      {"cuBLASLt FP8 per-tensor, no scale pointers", Fp8ScaleGranularity::per_tensor,
       Fp8ScaleGranularity::per_tensor, false},
      {"cuBLASLt FP8 per-tensor (SCALAR_32F)", Fp8ScaleGranularity::per_tensor,
       Fp8ScaleGranularity::per_tensor, true},
      {"cuBLASLt FP8 per-row (OUTER_VEC_32F)", Fp8ScaleGranularity::per_row,
       Fp8ScaleGranularity::per_row, true},
      {"cuBLASLt FP8 1x128 x 1x128 (VEC128_32F)", Fp8ScaleGranularity::block_1x128,
       Fp8ScaleGranularity::block_1x128, true},
      {"cuBLASLt FP8 1x128 x 128x128", Fp8ScaleGranularity::block_1x128,
       Fp8ScaleGranularity::block_128x128, true},
      {"cuBLASLt FP8 128x128 x 128x128 (BLK128x128)", Fp8ScaleGranularity::block_128x128,
       Fp8ScaleGranularity::block_128x128, true},
      {"cuBLASLt FP8 per-tensor x per-row", Fp8ScaleGranularity::per_tensor,
       Fp8ScaleGranularity::per_row, true},
  };
  for (const Mode& mode : modes) {
    Quantized qa = quantize(a, mode.a, partials, quant);
    Quantized qb = quantize(b, mode.b, partials, quant);
    auto plan =
        aisp::common::make_fp8_e4m3_plan(m, n, k, {mode.a, mode.pointers ? qa.scales : nullptr},
                                         {mode.b, mode.pointers ? qb.scales : nullptr});
    const std::string refusal = aisp::common::fp8_heuristic_answer(plan, workspace_limit);
    if (!refusal.empty()) {
      print_row(mode.name, "heuristic: none (" + refusal.substr(0, 80) + ")", 0, flops, {});
    } else {
      poison();
      const cublasStatus_t status =
          plan.run(&alpha, qa.q, qb.q, &beta, c, c, workspace, workspace_limit, nullptr);
      CHECK(cudaDeviceSynchronize());
      if (status != CUBLAS_STATUS_SUCCESS) {
        print_row(mode.name, std::string("matmul: ") + cublasLtGetStatusName(status), 0, flops, {});
      } else {
        const Errors e = measure(samples, download(c, static_cast<std::size_t>(m) * n), n,
                                 mode.pointers ? &qa : nullptr, mode.pointers ? &qb : nullptr, k);
        const float ms = median_ms(
            [&] { plan.run(&alpha, qa.q, qb.q, &beta, c, c, workspace, workspace_limit, nullptr); },
            20);
        print_row(mode.name, "ok", ms, flops, e);
      }
    }
    for (Quantized* q : {&qa, &qb}) {
      CHECK(cudaFree(q->q));
      CHECK(cudaFree(q->scales));
    }
  }

  // Per-tensor again, with A's scale pointer 4 bytes past a 16-byte boundary (where a factor
  // stored after another float in one buffer lands).
  {
    Quantized qa = quantize(a, Fp8ScaleGranularity::per_tensor, partials, quant);
    Quantized qb = quantize(b, Fp8ScaleGranularity::per_tensor, partials, quant);
    float* shifted = nullptr;
    CHECK(cudaMalloc(&shifted, 64));
    CHECK(cudaMemcpy(shifted + 1, qa.scales, sizeof(float), cudaMemcpyDeviceToDevice));
    auto plan =
        aisp::common::make_fp8_e4m3_plan(m, n, k, {Fp8ScaleGranularity::per_tensor, shifted + 1},
                                         {Fp8ScaleGranularity::per_tensor, qb.scales});
    const std::string refusal = aisp::common::fp8_heuristic_answer(plan, workspace_limit);
    const cublasStatus_t status = refusal.empty() ? plan.run(&alpha, qa.q, qb.q, &beta, c, c,
                                                             workspace, workspace_limit, nullptr)
                                                  : CUBLAS_STATUS_NOT_SUPPORTED;
    CHECK(cudaDeviceSynchronize());
    std::printf("cuBLASLt FP8 per-tensor, A scale pointer at +4 bytes: heuristic %s, matmul %s\n",
                refusal.empty() ? "offers an algorithm" : refusal.c_str(),
                cublasLtGetStatusName(status));
    for (Quantized* q : {&qa, &qb}) {
      CHECK(cudaFree(q->q));
      CHECK(cudaFree(q->scales));
    }
    CHECK(cudaFree(shifted));
  }

  // The hand-written block-scaled GEMM, cluster 1 and 2.
  {
    Quantized qa = quantize(a, Fp8ScaleGranularity::block_1x128, partials, quant);
    Quantized qb = quantize(b, Fp8ScaleGranularity::block_128x128, partials, quant);
    for (int cluster : {1, 2}) {
      const aisp::ch19::Fp8BlockScaledGemmArgs args{qa.q, qb.q, qa.scales, qb.scales, c, m, n, k};
      const auto launch = aisp::ch19::prepare_gemm_fp8_block_scaled(args, device, cluster);
      poison();
      CHECK(aisp::ch19::launch_gemm_fp8_block_scaled(launch, nullptr));
      CHECK(cudaDeviceSynchronize());
      const auto host_c = download(c, static_cast<std::size_t>(m) * n);
      std::size_t unwritten = 0;
      for (const __nv_bfloat16 v : host_c)
        unwritten += std::isnan(__bfloat162float(v)) ? 1 : 0;
      const Errors e = measure(samples, host_c, n, &qa, &qb, k);
      const float ms =
          median_ms([&] { CHECK(aisp::ch19::launch_gemm_fp8_block_scaled(launch, nullptr)); }, 20);
      const std::string name = "wgmma block-scaled 1x128 x 128x128, cluster " +
                               std::to_string(cluster) + " (" + std::to_string(launch.grid.x) +
                               " blocks)";
      print_row(name.c_str(), unwritten ? std::to_string(unwritten) + " NaN" : "ok", ms, flops, e);
    }
    CHECK(cudaFree(qa.q));
    CHECK(cudaFree(qa.scales));
    CHECK(cudaFree(qb.q));
    CHECK(cudaFree(qb.scales));
  }

  // Per-tensor quantization of A: three kernels vs one cooperative kernel.
  {
    const std::size_t count = static_cast<std::size_t>(m) * k;
    std::uint8_t *q3 = nullptr, *q1 = nullptr;
    float *d3 = nullptr, *d1 = nullptr, *fused_partials = nullptr;
    CHECK(cudaMalloc(&q3, count));
    CHECK(cudaMalloc(&q1, count));
    CHECK(cudaMalloc(&d3, 4));
    CHECK(cudaMalloc(&d1, 4));
    const int blocks = aisp::common::fused_per_tensor_quantize_blocks(device);
    CHECK(cudaMalloc(&fused_partials, static_cast<std::size_t>(std::max(blocks, 1)) * 4));
    const auto three = [&] {
      CHECK(aisp::common::launch_quantize_e4m3_per_tensor(a.device, count, partials, quant, q3, d3,
                                                          nullptr));
    };
    const auto one = [&] {
      CHECK(aisp::common::launch_quantize_e4m3_per_tensor_fused(a.device, count, fused_partials,
                                                                blocks, q1, d1, nullptr));
    };
    const float ms3 = median_ms(three, 20), ms1 = median_ms(one, 20);
    CHECK(cudaDeviceSynchronize());
    const auto h3 = download(q3, count), h1 = download(q1, count);
    const float s3 = download(d3, 1)[0], s1 = download(d1, 1)[0];
    double amax = 0;
    for (const __nv_bfloat16 v : a.host)
      amax = std::max(amax, std::fabs(static_cast<double>(__bfloat162float(v))));
    std::size_t differ = 0;
    for (std::size_t i = 0; i < count; ++i)
      differ += h3[i] != h1[i] ? 1 : 0;
    std::printf("per-tensor quantize %dx%d bf16: three kernels %.3f ms (%.0f GB/s), one "
                "cooperative kernel (%d blocks) %.3f ms (%.0f GB/s); dequant %.6g vs %.6g (host "
                "amax/448 %.6g); %zu bytes differ\n",
                m, k, ms3, 3.0 * count / (ms3 * 1e-3) / 1e9, blocks, ms1,
                3.0 * count / (ms1 * 1e-3) / 1e9, s3, s1, amax / 448.0, differ);
  }
  std::printf("done\n");
  return 0;
}
