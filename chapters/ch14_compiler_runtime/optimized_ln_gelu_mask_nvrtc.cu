// Optimized, compiled at run time: the same fused kernel text as optimized_ln_gelu_mask, compiled
// by NVRTC in setup with the row length baked in as a template argument (kCols = 4096), for
// exactly the GPU it runs on (sm_<major><minor>). What changed vs the ahead-of-time build: the
// compiler knows the shape, so each thread's register array holds exactly the 4 chunks a
// 4096-element row gives it (not the 8 the longest accepted row needs), every bounds test and the
// divisions by the row length fold away, and fewer registers let more rows share an SM. This is
// what torch.compile's code generation (and cuda.core / CuPy RawKernel) buy: specialization to
// the shapes seen at run time. Launched like the ahead-of-time build: a persistent grid of as
// many blocks as fit on the GPU at once (the occupancy calculator asked about the loaded kernel).
// The compile happens in setup, outside the timed region: its time (NVRTC create → cubin, host
// clock) and the library load are written to the pair's log, one line per setup. NVRTC is opened
// with dlopen (no link dependency); the cubin is loaded with cudaLibraryLoadData and launched with
// cudaLaunchKernel on the cudaKernel_t, through the CUDA runtime alone. Without libnvrtc the
// variant fails in setup with a message naming what is missing.
// Bytes: 320 MiB (x, mask read; y written). Ceiling: HBM bandwidth.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "fused_ln_gelu_mask_source.cuh"
#include "ln_gelu_mask_common.cuh"
#include "nvrtc_runtime.hpp"

namespace aisp::ch14 {
namespace {

constexpr int kThreads = 128;
constexpr int kWarpsPerBlock = kThreads / 32;  // one row per warp
// 3 blocks of 128 per SM (12 warps): with the row length baked in, ptxas (NVRTC, sm_90) schedules
// the output pass's gamma and beta loads early and uses 168 registers with no spills; capped at
// 128 (4 blocks) it spilled 220 bytes.
constexpr int kMinBlocksPerSm = 3;

}  // namespace

struct LnGeluMaskFusedNvrtc : LnGeluMaskProblem {
  void setup(aisp::Context& ctx) override {
    LnGeluMaskProblem::setup(ctx);
    const cudaDeviceProp& device = ctx.device_properties();
    NvrtcCompileRequest request;
    request.source = kFusedLnGeluMaskSource;
    request.program_name = "fused_ln_gelu_mask_nvrtc.cu";
    // kMaxCols (the last argument) only matters when kCols is 0.
    request.name_expression = "fused_ln_gelu_mask<" + std::to_string(kCols) + ", " +
                              std::to_string(kThreads) + ", " + std::to_string(kCols) + ", " +
                              std::to_string(kMinBlocksPerSm) + ">";
    request.options = {nvrtc_architecture_option(device.major, device.minor), "--std=c++17"};
    NvrtcCubin cubin;
    try {
      cubin = compile_to_cubin(request);
    } catch (const NvrtcUnavailable& missing) {
      throw NvrtcUnavailable(
          "ch14:ln_gelu_mask_nvrtc compiles its kernel at run time and needs NVRTC: " +
          std::string(missing.what()));
    }
    const auto load_started = std::chrono::steady_clock::now();
    AISP_CUDA_CHECK(cudaLibraryLoadData(&library_, cubin.image.data(), nullptr, nullptr, 0, nullptr,
                                        nullptr, 0));
    AISP_CUDA_CHECK(cudaLibraryGetKernel(&kernel_, library_, cubin.lowered_name.c_str()));
    const double load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_started)
            .count();
    std::fprintf(stderr,
                 "ch14:ln_gelu_mask_nvrtc: NVRTC %s compiled %s for %s in %.1f ms (cubin %zu "
                 "bytes, loaded in %.2f ms); both in setup, outside the timed region\n",
                 cubin.nvrtc_version.c_str(), request.name_expression.c_str(),
                 request.options.front().c_str(), cubin.compile_ms, cubin.image.size(), load_ms);
    if (!cubin.log.empty())
      std::fprintf(stderr, "ch14:ln_gelu_mask_nvrtc: NVRTC log:\n%s\n", cubin.log.c_str());
    int blocks_per_sm = 0;
    AISP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, reinterpret_cast<const void*>(kernel_), kThreads, 0));
    if (blocks_per_sm < 1)
      throw std::runtime_error("ch14:ln_gelu_mask_nvrtc: no block of " + std::to_string(kThreads) +
                               " threads of the NVRTC-compiled kernel fits on an SM; check its "
                               "register use (NVRTC option --ptxas-options=-v)");
    // One warp per row, every row its own warp: no grid-stride loop (the kernel says why).
    blocks_ = static_cast<unsigned int>((kRows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  }

  void run(aisp::Context& ctx) override {
    const auto* x_chunks = reinterpret_cast<const uint4*>(x());
    const auto* mask_chunks = reinterpret_cast<const uint2*>(mask());
    const auto* gamma_chunks = reinterpret_cast<const uint4*>(gamma());
    const auto* beta_chunks = reinterpret_cast<const uint4*>(beta());
    auto* y_chunks = reinterpret_cast<uint4*>(y());
    unsigned int rows = kRows;
    int cols = kCols;  // ignored by the kernel (kCols is baked in), passed for the same signature
    float eps = kEps;
    void* arguments[] = {&x_chunks, &mask_chunks, &gamma_chunks, &beta_chunks,
                         &y_chunks, &rows,        &cols,         &eps};
    AISP_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(blocks_),
                                     dim3(kThreads), arguments, 0, ctx.stream()));
    AISP_CHECK_LAUNCH();
  }

  void teardown(aisp::Context&) override {
    if (library_ != nullptr)
      AISP_CUDA_CHECK(cudaLibraryUnload(library_));
    library_ = nullptr;
    kernel_ = nullptr;
  }

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  unsigned int blocks_ = 0;
};

}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::LnGeluMaskFusedNvrtc)
