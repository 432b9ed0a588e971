// Probe (not part of the build): chapter 10's ping-pong GEMM and the fused bias + GELU GEMMs
// outside the harness, for kernel work on the GPU machine. For an M N K shape it fills A, B and a
// bias with random bf16 values and then:
//   plain    cuBLASLt C = A·Bᵀ (checked on 256 sampled elements against a float64 dot product),
//            then the persistent rung and the ping-pong kernel: C poisoned with NaN, one run,
//            EVERY element against cuBLASLt's, then the median of back-to-back timed runs, and
//            every element of the last timed run's output checked again;
//   fused    cuBLASLt with CUBLASLT_EPILOGUE_GELU_BIAS (checked on sampled elements against
//            float64 GELU_tanh(dot + bias)) as the reference, then the unfused chain (cuBLASLt
//            GEMM + bias kernel + GELU kernel), the persistent kernel with the fused epilogue and
//            the ping-pong kernel with it: every element against the reference, then timing,
//            then every element again.
// Each kernel's name goes to stderr before it runs, so a hang under `timeout` names its kernel.
// Any shape of whole tiles works (M % 128, N % 256 for the persistent kernels, K % 64): small
// ones with a few tiles per block and fewer k-steps than ring slots exercise the ring's wrap.
// Tolerance as in the pairs: |x - ref| <= 5e-3 + 2e-2·|ref| for the fused outputs (the unfused
// chain rounds three times), 5e-3 + 1e-2·|ref| for the plain GEMM.
//   nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ichapters \
//     scripts/probes/gemm_epilogue_probe.cu
//     chapters/ch10_tensor_cores/gemm_bf16_persistent_kernel.cu \
//     chapters/ch10_tensor_cores/gemm_bf16_pingpong_kernel.cu \
//     chapters/ch10_tensor_cores/gemm_bias_gelu_persistent_kernel.cu \
//     chapters/ch10_tensor_cores/gemm_bias_gelu_elementwise.cu -lcublasLt -o /tmp/epilogue_probe
//   timeout 120 /tmp/epilogue_probe 8192 8192 8192 plain
//   timeout 120 /tmp/epilogue_probe 8192 14336 4096 fused
//   /tmp/epilogue_probe 8192 14336 4096 fused --profile   (2 runs each, no timing loop: for ncu)
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

#include "ch10_tensor_cores/gemm_bf16_kernels.cuh"
#include "ch10_tensor_cores/gemm_epilogue_kernels.cuh"
#include "common/cublaslt_matmul_plan.hpp"
#include "common/gemm_epilogue_wgmma.cuh"

#include "probe_check.hpp"

namespace {

__global__ void fill_uniform(__nv_bfloat16* x, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);  // [0, 1)
    x[i] = __float2bfloat16(2.0f * u - 1.0f);
  }
}

float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

double gelu_tanh_f64(double x) {
  const double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return 0.5 * x * (1.0 + std::tanh(u));
}

float median_ms(const std::function<void()>& run, int iterations) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
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

void require(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void require(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s M N K plain|fused [--profile]\n", argv[0]);
    return 2;
  }
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
  const bool fused = std::strcmp(argv[4], "fused") == 0;
  const bool profile = argc > 5 && std::strcmp(argv[5], "--profile") == 0;
  const double flops = 2.0 * m * n * static_cast<double>(k);
  const double rtol = fused ? 2e-2 : 1e-2, atol = 5e-3;
  cudaDeviceProp device{};
  CHECK(cudaGetDeviceProperties(&device, 0));
  std::printf("%s, %d SMs; M %d N %d K %d, %s\n", device.name, device.multiProcessorCount, m, n, k,
              fused ? "C = GELU_tanh(A·Bᵀ + bias)" : "C = A·Bᵀ");

  const std::size_t a_count = std::size_t(m) * k, b_count = std::size_t(n) * k,
                    c_count = std::size_t(m) * n;
  __nv_bfloat16 *a, *b, *bias, *c, *ref, *h;
  CHECK(cudaMalloc(&a, a_count * 2));
  CHECK(cudaMalloc(&b, b_count * 2));
  CHECK(cudaMalloc(&bias, std::size_t(n) * 2));
  CHECK(cudaMalloc(&c, c_count * 2));
  CHECK(cudaMalloc(&ref, c_count * 2));
  CHECK(cudaMalloc(&h, c_count * 2));
  fill_uniform<<<1024, 256>>>(a, a_count, 0x1234);
  fill_uniform<<<1024, 256>>>(b, b_count, 0x5678);
  fill_uniform<<<64, 256>>>(bias, std::size_t(n), 0x9abc);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  // The references: cuBLASLt plain, and cuBLASLt with the GELU_BIAS epilogue.
  auto plain = aisp::common::CublasLtMatmulPlan::row_major_tn(m, n, k, CUDA_R_16BF, CUDA_R_16BF,
                                                              CUDA_R_16BF);
  plain.choose_algorithm(32u << 20);
  auto epi = aisp::common::CublasLtMatmulPlan::row_major_tn(m, n, k, CUDA_R_16BF, CUDA_R_16BF,
                                                            CUDA_R_16BF);
  epi.set_operation_attribute(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_GELU_BIAS);
  epi.set_operation_attribute(CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<const void*>(bias));
  epi.set_operation_attribute(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, CUDA_R_16BF);
  epi.choose_algorithm(32u << 20);
  void* workspace = nullptr;
  const std::size_t ws = std::max(plain.workspace_bytes(), epi.workspace_bytes());
  if (ws > 0)
    CHECK(cudaMalloc(&workspace, ws));
  const float alpha = 1.0f, beta = 0.0f;
  auto run_plain = [&](__nv_bfloat16* out) {
    require(plain.run(&alpha, a, b, &beta, out, out, workspace, ws, nullptr), "cublasLt plain");
  };
  auto run_epi = [&](__nv_bfloat16* out) {
    require(epi.run(&alpha, a, b, &beta, out, out, workspace, ws, nullptr), "cublasLt GELU_BIAS");
  };
  if (fused)
    run_epi(ref);
  else
    run_plain(ref);
  CHECK(cudaDeviceSynchronize());

  std::vector<__nv_bfloat16> h_a(a_count), h_b(b_count), h_bias(n), h_ref(c_count), h_c(c_count);
  CHECK(cudaMemcpy(h_a.data(), a, a_count * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_b.data(), b, b_count * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_bias.data(), bias, std::size_t(n) * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_ref.data(), ref, c_count * 2, cudaMemcpyDeviceToHost));
  auto float64 = [&](std::size_t idx) {
    const std::size_t row = idx / n, col = idx % n;
    double sum = 0;
    for (int kk = 0; kk < k; ++kk)
      sum += double(to_float(h_a[row * k + kk])) * double(to_float(h_b[col * k + kk]));
    return fused ? gelu_tanh_f64(sum + double(to_float(h_bias[col]))) : sum;
  };
  double lt_err = 0;
  for (int s = 0; s < 256; ++s) {
    const std::size_t idx = (std::size_t(s) * 2654435761u) % c_count;
    const double r = float64(idx);
    lt_err = std::max(lt_err, std::abs(r - double(to_float(h_ref[idx]))) / (1.0 + std::abs(r)));
  }
  float lt_ms = 0;
  auto reference_run = [&] { fused ? run_epi(ref) : run_plain(ref); };
  if (!profile) {
    for (int i = 0; i < 5; ++i)
      reference_run();
    lt_ms = median_ms(reference_run, 30);
  }
  std::printf("%-28s %9.3f ms %7.1f TFLOP/s  1.000  (vs float64 on 256 samples: max "
              "err/(1+|ref|) %.2e)\n",
              fused ? "cublaslt_gelu_bias" : "cublaslt", lt_ms, profile ? 0.0 : flops / lt_ms / 1e9,
              lt_err);
  std::fflush(stdout);

  struct Candidate {
    std::string name;
    std::function<void()> prepare;
    std::function<void()> run;
  };
  std::vector<Candidate> candidates;
  const aisp::ch10::GemmBf16Args args{a, b, c, m, n, k};
  aisp::ch10::GemmBf16Launch persistent{}, pingpong{};
  aisp::ch10::GemmBiasGeluLaunch fused_persistent{}, fused_pingpong{};
  if (!fused) {
    candidates.push_back(
        {"persistent (rung 6)",
         [&] { persistent = aisp::ch10::prepare_gemm_bf16_persistent(args, device); },
         [&] { require(aisp::ch10::launch_gemm_bf16_persistent(persistent, nullptr), "launch"); }});
    candidates.push_back(
        {"pingpong", [&] { pingpong = aisp::ch10::prepare_gemm_bf16_pingpong(args, device); },
         [&] { require(aisp::ch10::launch_gemm_bf16_pingpong(pingpong, nullptr), "launch"); }});
  } else {
    candidates.push_back(
        {"unfused (lt + bias + gelu)", [] {},
         [&] {
           run_plain(h);
           require(aisp::ch10::launch_add_bias_bf16(h, bias, m, n, nullptr), "add_bias");
           require(aisp::ch10::launch_gelu_tanh_bf16(h, c, c_count, nullptr), "gelu");
         }});
    candidates.push_back(
        {"fused persistent",
         [&] {
           fused_persistent = aisp::ch10::prepare_gemm_bias_gelu_persistent({args, bias}, device);
         },
         [&] {
           require(aisp::ch10::launch_gemm_bias_gelu_persistent(fused_persistent, nullptr),
                   "launch");
         }});
    candidates.push_back(
        {"fused pingpong",
         [&] {
           fused_pingpong = aisp::ch10::prepare_gemm_bias_gelu_pingpong({args, bias}, device);
         },
         [&] {
           require(aisp::ch10::launch_gemm_bias_gelu_pingpong(fused_pingpong, nullptr), "launch");
         }});
  }

  // Every element of C against the reference: counts of elements out of tolerance and of NaN
  // (never written: C is poisoned before the run), the worst errors, the first bad element.
  struct Check {
    double max_abs = 0, max_rel = 0;
    std::size_t bad = 0, unwritten = 0, first_bad = 0;
    double first_value = 0, first_ref = 0;
  };
  auto check_all = [&]() {
    CHECK(cudaMemcpy(h_c.data(), c, c_count * 2, cudaMemcpyDeviceToHost));
    Check r;
    r.first_bad = c_count;
    for (std::size_t i = 0; i < c_count; ++i) {
      const double x = to_float(h_c[i]), ref_value = to_float(h_ref[i]);
      if (std::isnan(x)) {
        ++r.unwritten;
        if (r.first_bad == c_count)
          r.first_bad = i, r.first_value = x, r.first_ref = ref_value;
        continue;
      }
      const double diff = std::abs(x - ref_value);
      r.max_abs = std::max(r.max_abs, diff);
      r.max_rel = std::max(r.max_rel, diff / std::max(std::abs(ref_value), 1.0));
      if (diff > atol + rtol * std::abs(ref_value)) {
        if (r.first_bad == c_count)
          r.first_bad = i, r.first_value = x, r.first_ref = ref_value;
        ++r.bad;
      }
    }
    return r;
  };

  for (Candidate& cand : candidates) {
    try {
      cand.prepare();
    } catch (const std::exception& e) {
      std::printf("%-28s prepare failed: %s\n", cand.name.c_str(), e.what());
      continue;
    }
    // Named before it runs: a kernel that hangs (a miscounted mbarrier phase) is then identified
    // by the last line printed before the timeout kills the probe.
    std::fprintf(stderr, "[%s: first run]\n", cand.name.c_str());
    CHECK(cudaMemset(c, 0xFF, c_count * 2));  // NaN in bf16
    cand.run();
    CHECK(cudaDeviceSynchronize());
    const Check first = check_all();
    double worst_f64 = 0;
    for (int s = 0; s < 64; ++s) {
      const std::size_t idx = (std::size_t(s) * 40503u + 17) * 2654435761u % c_count;
      const double r = float64(idx);
      worst_f64 =
          std::max(worst_f64, std::abs(r - double(to_float(h_c[idx]))) / (1.0 + std::abs(r)));
    }
    float ms = 0;
    std::fprintf(stderr, "[%s: timed runs]\n", cand.name.c_str());
    CHECK(cudaMemset(c, 0xFF, c_count * 2));
    if (!profile) {
      for (int i = 0; i < 3; ++i)
        cand.run();
      ms = median_ms(cand.run, 20);
    } else {
      cand.run();
    }
    CHECK(cudaDeviceSynchronize());
    // The output of the last timed run, checked again: a protocol race that strikes only now and
    // then shows up here rather than hiding behind one lucky first run.
    const Check last = check_all();
    const bool ok = first.bad == 0 && first.unwritten == 0 && last.bad == 0 && last.unwritten == 0;
    std::printf("%-28s %9.3f ms %7.1f TFLOP/s  %.3f  max_abs %.3e max_rel %.3e bad %zu nan %zu "
                "f64 %.2e, after timing bad %zu nan %zu%s",
                cand.name.c_str(), ms, profile ? 0.0 : flops / ms / 1e9, profile ? 0.0 : lt_ms / ms,
                first.max_abs, first.max_rel, first.bad, first.unwritten, worst_f64, last.bad,
                last.unwritten, ok ? "  ok" : "  FAIL");
    const Check& failed = first.first_bad < c_count ? first : last;
    if (failed.first_bad < c_count)
      std::printf(" (first at row %zu col %zu, %s run: %g vs %g)", failed.first_bad / n,
                  failed.first_bad % n, &failed == &first ? "first" : "last timed",
                  failed.first_value, failed.first_ref);
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
