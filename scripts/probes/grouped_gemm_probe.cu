// Probe (not part of the build): the grouped BF16 GEMM (chapters/common/grouped_gemm_bf16.cu)
// outside the harness. Groups of uneven heights (the ch14 grouped_gemm list, or `random G` for G
// random heights 0..2·mean), shared N and K: fills X and W with random bf16, runs one cublasGemmEx
// per group as the reference (checked on 128 sampled elements against a float64 dot product),
// poisons Y with NaN, runs the grouped kernel once and compares EVERY element of every group's
// rows (and that no row past the last group is written), then times both (median of 20).
//   nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ichapters \
//     scripts/probes/grouped_gemm_probe.cu chapters/common/grouped_gemm_bf16.cu -lcublas \
//     -o /tmp/grouped_probe
//   timeout 120 /tmp/grouped_probe 2048 7168            (the ch14 pair's 64 experts)
//   timeout 120 /tmp/grouped_probe 4096 4096 random 16  (16 random groups, ~2048 rows each)
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
#include <random>
#include <vector>

#include "ch14_compiler_runtime/grouped_gemm_shape.hpp"
#include "common/grouped_gemm_bf16.cuh"

#include "probe_check.hpp"

namespace {

__global__ void fill_uniform(__nv_bfloat16* x, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);
    x[i] = __float2bfloat16(2.0f * u - 1.0f);
  }
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
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N K [random GROUPS]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]), k = std::atoi(argv[2]);
  std::vector<int> rows;
  if (argc >= 5 && std::strcmp(argv[3], "random") == 0) {
    std::mt19937 rng(7);
    const int groups = std::atoi(argv[4]);
    std::uniform_int_distribution<int> pick(0, 4096);
    for (int g = 0; g < groups; ++g)
      rows.push_back(pick(rng));
  } else {
    rows.assign(aisp::ch14::kGroupRows.begin(), aisp::ch14::kGroupRows.end());
  }
  const int groups = static_cast<int>(rows.size());
  std::vector<int> offsets(groups + 1, 0);
  for (int g = 0; g < groups; ++g)
    offsets[g + 1] = offsets[g] + rows[g];
  const int used_rows = offsets[groups];
  const int total_rows = used_rows + 64;  // spare rows: must stay untouched
  cudaDeviceProp device{};
  CHECK(cudaGetDeviceProperties(&device, 0));
  const double flops = 2.0 * used_rows * n * static_cast<double>(k);
  std::printf("%s: %d groups, %d rows, N %d K %d, %.1f GFLOP\n", device.name, groups, used_rows, n,
              k, flops / 1e9);

  const std::size_t x_count = std::size_t(total_rows) * k, w_count = std::size_t(groups) * n * k,
                    y_count = std::size_t(total_rows) * n;
  __nv_bfloat16 *x, *w, *y, *ref;
  int* d_offsets;
  CHECK(cudaMalloc(&x, x_count * 2));
  CHECK(cudaMalloc(&w, w_count * 2));
  CHECK(cudaMalloc(&y, y_count * 2));
  CHECK(cudaMalloc(&ref, y_count * 2));
  CHECK(cudaMalloc(&d_offsets, offsets.size() * sizeof(int)));
  CHECK(
      cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
  fill_uniform<<<1024, 256>>>(x, x_count, 0x1111);
  fill_uniform<<<1024, 256>>>(w, w_count, 0x2222);
  CHECK(cudaGetLastError());
  CHECK(cudaMemset(ref, 0, y_count * 2));

  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
    return 1;
  const float alpha = 1.0f, beta = 0.0f;
  auto loop = [&] {
    for (int g = 0; g < groups; ++g) {
      if (rows[g] == 0)
        continue;
      const std::size_t r0 = offsets[g];
      if (cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, rows[g], k, &alpha,
                       w + std::size_t(g) * n * k, CUDA_R_16BF, k, x + r0 * k, CUDA_R_16BF, k,
                       &beta, ref + r0 * n, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cublasGemmEx failed\n");
        std::exit(1);
      }
    }
  };
  loop();
  CHECK(cudaDeviceSynchronize());

  std::vector<__nv_bfloat16> h_x(x_count), h_w(w_count), h_ref(y_count), h_y(y_count);
  CHECK(cudaMemcpy(h_x.data(), x, x_count * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_w.data(), w, w_count * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_ref.data(), ref, y_count * 2, cudaMemcpyDeviceToHost));
  double ref_err = 0;
  for (int s = 0; s < 128; ++s) {
    const std::size_t idx = (std::size_t(s) * 2654435761u) % (std::size_t(used_rows) * n);
    const std::size_t r = idx / n, col = idx % n;
    const int g = static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), int(r)) -
                                   offsets.begin() - 1);
    double sum = 0;
    for (int p = 0; p < k; ++p)
      sum += double(__bfloat162float(h_x[r * k + p])) *
             double(__bfloat162float(h_w[(std::size_t(g) * n + col) * k + p]));
    ref_err = std::max(ref_err, std::abs(sum - double(__bfloat162float(h_ref[idx]))) /
                                    (1.0 + std::abs(sum)));
  }
  const float loop_ms = median_ms(loop, 20);
  std::printf("cublas loop     %9.3f ms %7.1f TFLOP/s  (vs float64, 128 samples: max "
              "err/(1+|ref|) %.2e)\n",
              loop_ms, flops / loop_ms / 1e9, ref_err);

  aisp::common::GroupedGemmBf16Launch launch;
  try {
    launch = aisp::common::prepare_grouped_gemm_bf16({x, w, y, d_offsets, groups, total_rows, n, k},
                                                     device);
  } catch (const std::exception& e) {
    std::printf("grouped: prepare failed: %s\n", e.what());
    return 1;
  }
  auto grouped = [&] { CHECK(aisp::common::launch_grouped_gemm_bf16(launch, nullptr)); };
  CHECK(cudaMemset(y, 0xFF, y_count * 2));  // NaN
  grouped();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h_y.data(), y, y_count * 2, cudaMemcpyDeviceToHost));
  std::size_t bad = 0, unwritten = 0, overwritten = 0;
  double max_abs = 0;
  for (std::size_t i = 0; i < y_count; ++i) {
    const float v = __bfloat162float(h_y[i]);
    if (i >= std::size_t(used_rows) * n) {
      overwritten += std::isnan(v) ? 0 : 1;
      continue;
    }
    const float r = __bfloat162float(h_ref[i]);
    if (std::isnan(v)) {
      ++unwritten;
      continue;
    }
    const double diff = std::abs(double(v) - r);
    max_abs = std::max(max_abs, diff);
    if (diff > 5e-3 + 1e-2 * std::abs(r))
      ++bad;
  }
  const float ms = median_ms(grouped, 20);
  std::printf("grouped wgmma   %9.3f ms %7.1f TFLOP/s  %.3fx loop  max_abs %.3e bad %zu nan %zu "
              "spare rows written %zu%s\n",
              ms, flops / ms / 1e9, loop_ms / ms, max_abs, bad, unwritten, overwritten,
              (bad || unwritten || overwritten) ? "  FAIL" : "  ok");
  cublasDestroy(handle);
  return 0;
}
