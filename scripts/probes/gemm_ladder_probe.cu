// Probe (not part of the build): the BF16 GEMM ladder of chapter 10 outside the harness, for fast
// iteration on the GPU machine. For one size and the rungs named, it fills A and B with random
// bf16 values, runs cuBLASLt as the reference (checked itself against a float64 dot product on
// sampled elements), then for each rung: poisons C with NaN, runs the rung once and compares
// EVERY element with cuBLASLt's (max abs and rel error, count outside the problem's tolerance,
// unwritten elements), then times it (median of CUDA-event times of back-to-back runs) and
// prints TFLOP/s and the fraction of cuBLASLt. It links the chapter's kernel files directly:
//   nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ichapters \
//     scripts/probes/gemm_ladder_probe.cu chapters/ch10_tensor_cores/gemm_bf16_*_kernel.cu \
//     -lcublasLt -o /tmp/gemm_probe
//   /tmp/gemm_probe 8192 wgmma persistent         (rungs: simt wmma mma_sync wgmma wgmma_ring
//                                                  warp_specialized persistent cluster_multicast)
//   /tmp/gemm_probe 8192 --profile persistent     (2 runs, no timing loop: for ncu)
//   /tmp/gemm_probe 8192 cublaslt_only            (the reference alone)
// Run each rung under `timeout`: a broken mbarrier protocol hangs instead of failing.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ch10_tensor_cores/gemm_bf16_kernels.cuh"
#include "common/cublaslt_matmul_plan.hpp"

#include "probe_check.hpp"

namespace {

using aisp::ch10::GemmBf16Args;
using aisp::ch10::GemmBf16Launch;

struct Rung {
  const char* name;
  GemmBf16Launch (*prepare)(const GemmBf16Args&, const cudaDeviceProp&);
  cudaError_t (*launch)(const GemmBf16Launch&, cudaStream_t);
};

const Rung kRungs[] = {
    {"simt", aisp::ch10::prepare_gemm_bf16_simt, aisp::ch10::launch_gemm_bf16_simt},
    {"wmma", aisp::ch10::prepare_gemm_bf16_wmma, aisp::ch10::launch_gemm_bf16_wmma},
    {"mma_sync", aisp::ch10::prepare_gemm_bf16_mma_sync, aisp::ch10::launch_gemm_bf16_mma_sync},
    {"wgmma", aisp::ch10::prepare_gemm_bf16_wgmma, aisp::ch10::launch_gemm_bf16_wgmma},
    {"wgmma_ring", aisp::ch10::prepare_gemm_bf16_wgmma_ring,
     aisp::ch10::launch_gemm_bf16_wgmma_ring},
    {"warp_specialized", aisp::ch10::prepare_gemm_bf16_warp_specialized,
     aisp::ch10::launch_gemm_bf16_warp_specialized},
    {"persistent", aisp::ch10::prepare_gemm_bf16_persistent,
     aisp::ch10::launch_gemm_bf16_persistent},
    {"cluster_multicast", aisp::ch10::prepare_gemm_bf16_cluster_multicast,
     aisp::ch10::launch_gemm_bf16_cluster_multicast},
};

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

template <class F>
float median_ms(F&& run, int iterations) {
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SIZE [--profile] RUNG...\n", argv[0]);
    return 2;
  }
  const int size = std::atoi(argv[1]);
  bool profile = false;
  std::vector<const Rung*> selected;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--profile") == 0) {
      profile = true;
      continue;
    }
    if (std::strcmp(argv[i], "cublaslt_only") == 0)
      continue;
    const Rung* found = nullptr;
    for (const Rung& r : kRungs)
      if (std::strcmp(r.name, argv[i]) == 0)
        found = &r;
    if (!found) {
      std::fprintf(stderr, "unknown rung %s\n", argv[i]);
      return 2;
    }
    selected.push_back(found);
  }
  const int m = size, n = size, k = size;
  const double flops = 2.0 * m * n * static_cast<double>(k);
  cudaDeviceProp device{};
  CHECK(cudaGetDeviceProperties(&device, 0));

  const std::size_t a_count = std::size_t(m) * k, b_count = std::size_t(n) * k,
                    c_count = std::size_t(m) * n;
  __nv_bfloat16 *a, *b, *c, *ref;
  CHECK(cudaMalloc(&a, a_count * 2));
  CHECK(cudaMalloc(&b, b_count * 2));
  CHECK(cudaMalloc(&c, c_count * 2));
  CHECK(cudaMalloc(&ref, c_count * 2));
  fill_uniform<<<1024, 256>>>(a, a_count, 0x1234);
  fill_uniform<<<1024, 256>>>(b, b_count, 0x5678);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  // cuBLASLt reference.
  auto plan = aisp::common::CublasLtMatmulPlan::row_major_tn(m, n, k, CUDA_R_16BF, CUDA_R_16BF,
                                                             CUDA_R_16BF);
  plan.choose_algorithm(32u << 20);
  void* workspace = nullptr;
  if (plan.workspace_bytes() > 0)
    CHECK(cudaMalloc(&workspace, plan.workspace_bytes()));
  const float alpha = 1.0f, beta = 0.0f;
  auto cublaslt = [&] {
    if (plan.run(&alpha, a, b, &beta, ref, ref, workspace, plan.workspace_bytes(), nullptr) !=
        CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "cublasLtMatmul failed\n");
      std::exit(1);
    }
  };
  cublaslt();
  CHECK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> h_a(a_count), h_b(b_count), h_ref(c_count), h_c(c_count);
  CHECK(cudaMemcpy(h_a.data(), a, a_count * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_b.data(), b, b_count * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_ref.data(), ref, c_count * 2, cudaMemcpyDeviceToHost));
  double lt_err = 0;
  for (int s = 0; s < 256; ++s) {
    const std::size_t idx = (std::size_t(s) * 2654435761u) % c_count;
    const std::size_t row = idx / n, col = idx % n;
    double sum = 0;
    for (int kk = 0; kk < k; ++kk)
      sum += double(to_float(h_a[row * k + kk])) * double(to_float(h_b[col * k + kk]));
    lt_err = std::max(lt_err, std::abs(sum - double(to_float(h_ref[idx]))) / (1.0 + std::abs(sum)));
  }
  float lt_ms = 0;
  if (!profile) {
    for (int i = 0; i < 5; ++i)
      cublaslt();
    lt_ms = median_ms(cublaslt, 30);
  }
  std::printf("%-6d %-18s %9.3f ms %7.1f TFLOP/s  1.000  (vs float64 on 256 samples: max "
              "err/(1+|ref|) %.2e)\n",
              size, "cublaslt", lt_ms, profile ? 0.0 : flops / lt_ms / 1e9, lt_err);
  std::fflush(stdout);

  for (const Rung* rung : selected) {
    GemmBf16Launch launch;
    try {
      launch = rung->prepare(GemmBf16Args{a, b, c, m, n, k}, device);
    } catch (const std::exception& e) {
      std::printf("%-6d %-18s prepare failed: %s\n", size, rung->name, e.what());
      continue;
    }
    auto run = [&] {
      const cudaError_t e = rung->launch(launch, nullptr);
      if (e != cudaSuccess) {
        std::fprintf(stderr, "%s launch: %s\n", rung->name, cudaGetErrorString(e));
        std::exit(1);
      }
    };
    CHECK(cudaMemset(c, 0xFF, c_count * 2));  // NaN in bf16
    run();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_c.data(), c, c_count * 2, cudaMemcpyDeviceToHost));
    double max_abs = 0, max_rel = 0;
    std::size_t bad = 0, unwritten = 0, first_bad = c_count;
    for (std::size_t i = 0; i < c_count; ++i) {
      const double x = to_float(h_c[i]), r = to_float(h_ref[i]);
      if (std::isnan(x)) {
        ++unwritten;
        if (first_bad == c_count)
          first_bad = i;
        continue;
      }
      const double diff = std::abs(x - r);
      max_abs = std::max(max_abs, diff);
      max_rel = std::max(max_rel, diff / std::max(std::abs(r), 1.0));
      if (diff > 5e-3 + 1e-2 * std::abs(r)) {
        if (first_bad == c_count)
          first_bad = i;
        ++bad;
      }
    }
    float ms = 0;
    if (!profile) {
      for (int i = 0; i < 3; ++i)
        run();
      ms = median_ms(run, size >= 8192 ? 20 : 50);
    } else {
      run();
    }
    CHECK(cudaDeviceSynchronize());
    std::printf("%-6d %-18s %9.3f ms %7.1f TFLOP/s  %.3f  max_abs %.3e max_rel %.3e bad %zu "
                "nan %zu%s",
                size, rung->name, ms, profile ? 0.0 : flops / ms / 1e9, profile ? 0.0 : lt_ms / ms,
                max_abs, max_rel, bad, unwritten, (bad || unwritten) ? "  FAIL" : "  ok");
    if (first_bad < c_count)
      std::printf(" (first at row %zu col %zu: %g vs %g)", first_bad / n, first_bad % n,
                  to_float(h_c[first_bad]), to_float(h_ref[first_bad]));
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
