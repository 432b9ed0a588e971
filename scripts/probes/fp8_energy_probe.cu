// Probe (not part of the build): energy, clock and cycles per 8192³ GEMM under sustained load, for
// cuBLASLt BF16, cuBLASLt FP8 (per-tensor; 1x128 x 128x128 blocks) and chapter 19's hand-written
// block-scaled rungs (128×192 with the TMA-store epilogue, and with the lean main loop). Each case
// runs back to back for a fixed time after a 1 s warm-up; NVML's total-energy counter before and
// after gives millijoules per GEMM, the SM clock and power sampled every 20 launches give the
// operating point, and time × clock gives kilocycles per GEMM. Under the 700 W power cap every
// case runs at the cap, so time follows energy, and cycles per GEMM separate the kernel's own
// efficiency from the clock the cap leaves it (chapters/ch19_low_precision/README.md, "Sixth
// session"). The cases run in one order and then the reverse, so a thermal drift shows.
// NVML is opened with dlopen (libnvidia-ml.so.1 comes with the driver; no header needed).
//   nvcc -O3 -std=c++20 -gencode arch=compute_90a,code=sm_90a -Ichapters \
//     scripts/probes/fp8_energy_probe.cu chapters/common/fp8_quantize.cu \
//     chapters/ch19_low_precision/gemm_fp8_block_scaled_kernel.cu -lcublasLt -lcuda -ldl \
//     -o /tmp/fp8_energy_probe
//   /tmp/fp8_energy_probe [seconds per case]      (default 3)
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ch19_low_precision/gemm_fp8_block_scaled_kernel.cuh"
#include "common/fp8_cublaslt_plan.hpp"
#include "common/fp8_quantize.cuh"

#include "probe_check.hpp"

namespace {
using Dev = void*;
struct Nvml {
  int (*init)() = nullptr;
  int (*handle)(unsigned, Dev*) = nullptr;
  int (*energy)(Dev, unsigned long long*) = nullptr;
  int (*power)(Dev, unsigned*) = nullptr;
  int (*clock)(Dev, int, unsigned*) = nullptr;
  int (*reasons)(Dev, unsigned long long*) = nullptr;
  Dev dev = nullptr;
  bool ok = false;
  Nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) {
      std::printf("no libnvidia-ml.so.1\n");
      return;
    }
    init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    handle = reinterpret_cast<int (*)(unsigned, Dev*)>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    energy = reinterpret_cast<int (*)(Dev, unsigned long long*)>(
        dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption"));
    power = reinterpret_cast<int (*)(Dev, unsigned*)>(dlsym(lib, "nvmlDeviceGetPowerUsage"));
    clock = reinterpret_cast<int (*)(Dev, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    reasons = reinterpret_cast<int (*)(Dev, unsigned long long*)>(
        dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!reasons)
      reasons = reinterpret_cast<int (*)(Dev, unsigned long long*)>(
          dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    ok = init && handle && energy && power && clock && init() == 0 && handle(0, &dev) == 0;
    std::printf("nvml %s\n", ok ? "ok" : "unavailable");
  }
  unsigned long long mj() {
    unsigned long long v = 0;
    energy(dev, &v);
    return v;
  }
  unsigned mw() {
    unsigned v = 0;
    power(dev, &v);
    return v;
  }
  unsigned sm_mhz() {
    unsigned v = 0;
    clock(dev, 1, &v);
    return v;
  }
  unsigned long long why() {
    unsigned long long v = 0;
    if (reasons)
      reasons(dev, &v);
    return v;
  }
};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__nv_bfloat16* random_bf16(std::size_t count, std::uint64_t seed) {
  std::vector<__nv_bfloat16> h(count);
  for (std::size_t i = 0; i < count; ++i)
    h[i] = __float2bfloat16(
        static_cast<float>((mix(seed ^ (i * 0x9E37ull)) >> 11) * 0x1.0p-53 * 2.0 - 1.0));
  __nv_bfloat16* d = nullptr;
  CHECK(cudaMalloc(&d, count * 2));
  CHECK(cudaMemcpy(d, h.data(), count * 2, cudaMemcpyHostToDevice));
  return d;
}

struct Q {
  std::uint8_t* q = nullptr;
  float* s = nullptr;
};
Q quantize(const __nv_bfloat16* x, int rows, int cols, aisp::common::Fp8ScaleGranularity g,
           float* partials, float* quant) {
  Q out;
  aisp::common::Fp8ScaleLayout layout{g, rows, cols};
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  CHECK(cudaMalloc(&out.q, count));
  CHECK(cudaMalloc(&out.s, layout.count() * sizeof(float)));
  if (g == aisp::common::Fp8ScaleGranularity::per_tensor)
    CHECK(aisp::common::launch_quantize_e4m3_per_tensor(x, count, partials, quant, out.q, out.s,
                                                        nullptr));
  else
    CHECK(aisp::common::launch_quantize_e4m3(x, rows, cols, g, out.q, out.s, nullptr));
  CHECK(cudaDeviceSynchronize());
  return out;
}

void measure(Nvml& nvml, const std::string& name, const std::function<void()>& gemm, double flops,
             double seconds) {
  using clk = std::chrono::steady_clock;
  // warm-up: 1 s
  auto t0 = clk::now();
  while (std::chrono::duration<double>(clk::now() - t0).count() < 1.0) {
    for (int i = 0; i < 20; ++i)
      gemm();
    CHECK(cudaDeviceSynchronize());
  }
  std::vector<unsigned> mhz, mw;
  unsigned long long reasons_or = 0;
  const unsigned long long e0 = nvml.mj();
  t0 = clk::now();
  long launches = 0;
  while (std::chrono::duration<double>(clk::now() - t0).count() < seconds) {
    for (int i = 0; i < 20; ++i)
      gemm();
    launches += 20;
    mhz.push_back(nvml.sm_mhz());
    mw.push_back(nvml.mw());
    reasons_or |= nvml.why();
    CHECK(cudaDeviceSynchronize());
  }
  const double elapsed = std::chrono::duration<double>(clk::now() - t0).count();
  const unsigned long long e1 = nvml.mj();
  CHECK(cudaGetLastError());
  double f = 0, p = 0;
  for (unsigned v : mhz)
    f += v;
  for (unsigned v : mw)
    p += v;
  f /= mhz.size();
  p /= mw.size();
  const double ms = elapsed / launches * 1e3;
  const double mj = static_cast<double>(e1 - e0) / launches;
  std::printf("%-34s %8.1f us  %7.1f TFLOP/s  %7.2f mJ/GEMM  %6.1f W(energy)  %6.1f W(samples)  "
              "SM %6.0f MHz  %8.0f kcycles/GEMM  reasons 0x%llx\n",
              name.c_str(), ms * 1e3, flops / (ms * 1e-3) / 1e12, mj,
              static_cast<double>(e1 - e0) / elapsed / 1e3, p / 1e3, f, ms * 1e-3 * f * 1e6 / 1e3,
              reasons_or);
  std::fflush(stdout);
}
}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  const int m = 8192, n = 8192, k = 8192;
  const double flops = 2.0 * m * n * static_cast<double>(k);
  Nvml nvml;
  if (!nvml.ok)
    return 1;
  cudaDeviceProp device{};
  CHECK(cudaGetDeviceProperties(&device, 0));
  std::printf("device %s, idle %u mW, SM %u MHz\n", device.name, nvml.mw(), nvml.sm_mhz());
  __nv_bfloat16* a = random_bf16(static_cast<std::size_t>(m) * k, 1);
  __nv_bfloat16* b = random_bf16(static_cast<std::size_t>(n) * k, 2);
  __nv_bfloat16* c = nullptr;
  CHECK(cudaMalloc(&c, static_cast<std::size_t>(m) * n * 2));
  void* ws = nullptr;
  const std::size_t wsl = 32u << 20;
  CHECK(cudaMalloc(&ws, wsl));
  float *partials = nullptr, *quant = nullptr;
  CHECK(cudaMalloc(&partials, aisp::common::kAbsmaxPartials * sizeof(float)));
  CHECK(cudaMalloc(&quant, sizeof(float)));
  using G = aisp::common::Fp8ScaleGranularity;
  const float alpha = 1.0f, beta = 0.0f;

  auto bf16 = aisp::common::CublasLtMatmulPlan::row_major_tn(m, n, k, CUDA_R_16BF, CUDA_R_16BF,
                                                             CUDA_R_16BF);
  bf16.choose_algorithm(wsl);
  Q pa = quantize(a, m, k, G::per_tensor, partials, quant);
  Q pb = quantize(b, n, k, G::per_tensor, partials, quant);
  auto pt = aisp::common::make_fp8_e4m3_plan(m, n, k, {G::per_tensor, pa.s}, {G::per_tensor, pb.s});
  if (!aisp::common::fp8_heuristic_answer(pt, wsl).empty()) {
    std::printf("no per-tensor algo\n");
    return 1;
  }
  Q ba = quantize(a, m, k, G::block_1x128, partials, quant);
  Q bb = quantize(b, n, k, G::block_128x128, partials, quant);
  auto blk =
      aisp::common::make_fp8_e4m3_plan(m, n, k, {G::block_1x128, ba.s}, {G::block_128x128, bb.s});
  const bool have_blk = aisp::common::fp8_heuristic_answer(blk, wsl).empty();
  const aisp::ch19::Fp8BlockScaledGemmArgs args{ba.q, bb.q, ba.s, bb.s, c, m, n, k};
  const auto l192 = aisp::ch19::prepare_gemm_fp8_block_scaled(
      args, device, aisp::ch19::Fp8WgmmaRung{.tile_cols = 192, .tma_store = true});
  const auto llean = aisp::ch19::prepare_gemm_fp8_block_scaled(
      args, device, aisp::ch19::Fp8WgmmaRung{.tile_cols = 192, .tma_store = true, .lean = true});

  struct Case {
    std::string name;
    std::function<void()> run;
  };
  std::vector<Case> cases = {
      {"cuBLASLt BF16", [&] { bf16.run(&alpha, a, b, &beta, c, c, ws, wsl, nullptr); }},
      {"cuBLASLt FP8 per-tensor",
       [&] { pt.run(&alpha, pa.q, pb.q, &beta, c, c, ws, wsl, nullptr); }},
      {"hand 128x192 tma_store",
       [&] { CHECK(aisp::ch19::launch_gemm_fp8_block_scaled(l192, nullptr)); }},
      {"hand 128x192 lean",
       [&] { CHECK(aisp::ch19::launch_gemm_fp8_block_scaled(llean, nullptr)); }},
  };
  if (have_blk)
    cases.push_back({"cuBLASLt FP8 1x128 x 128x128",
                     [&] { blk.run(&alpha, ba.q, bb.q, &beta, c, c, ws, wsl, nullptr); }});
  for (int pass = 0; pass < 2; ++pass) {
    std::printf("pass %d\n", pass);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& cs = cases[pass == 0 ? i : cases.size() - 1 - i];
      measure(nvml, cs.name, cs.run, flops, seconds);
    }
  }
  std::printf("done\n");
  return 0;
}
