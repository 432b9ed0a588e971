// The NVRTC build of the fused ln_gelu_mask kernel as a variant class, used by
// optimized_ln_gelu_mask_nvrtc.cu, for a given kMinBlocksPerSm (the register cap the kernel is
// compiled under: 65536 / (128 · kMinBlocksPerSm) registers, that many blocks of 128 per SM), so
// that an A/B of the cap is one short file. optimized_ln_gelu_mask_nvrtc.cu's header says what
// the variant does.
#pragma once

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "fused_ln_gelu_mask_source.cuh"
#include "ln_gelu_mask_common.cuh"
#include "nvrtc_runtime.hpp"

namespace aisp::ch14 {
// Internal linkage, as the kernel text it compiles (fused_ln_gelu_mask_source.cuh): each
// translation unit that includes this has its own copy.
namespace {

namespace ln_gelu_mask_nvrtc {
inline constexpr int kThreads = 128;
inline constexpr int kWarpsPerBlock = kThreads / 32;  // one row per warp
}  // namespace ln_gelu_mask_nvrtc

template <int kMinBlocksPerSm>
class LnGeluMaskFusedNvrtcBuild : public LnGeluMaskProblem {
 public:
  // `target` names the pair in the setup log and in error messages.
  explicit LnGeluMaskFusedNvrtcBuild(std::string target) : target_(std::move(target)) {}

  void setup(aisp::Context& ctx) override {
    LnGeluMaskProblem::setup(ctx);
    const cudaDeviceProp& device = ctx.device_properties();
    NvrtcCompileRequest request;
    request.source = kFusedLnGeluMaskSource;
    request.program_name = "fused_ln_gelu_mask_nvrtc.cu";
    // kMaxCols (the last argument) only matters when kCols is 0.
    request.name_expression = "fused_ln_gelu_mask<" + std::to_string(kCols) + ", " +
                              std::to_string(ln_gelu_mask_nvrtc::kThreads) + ", " +
                              std::to_string(kCols) + ", " + std::to_string(kMinBlocksPerSm) + ">";
    // ptxas -v: the registers and spills of the build that runs go to the pair's log.
    request.options = {nvrtc_architecture_option(device.major, device.minor), "--std=c++17",
                       "--ptxas-options=-v"};
    NvrtcCubin cubin;
    try {
      cubin = compile_to_cubin(request);
    } catch (const NvrtcUnavailable& missing) {
      throw NvrtcUnavailable(target_ + " compiles its kernel at run time and needs NVRTC: " +
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
                 "%s: NVRTC %s compiled %s for %s in %.1f ms (cubin %zu "
                 "bytes, loaded in %.2f ms); both in setup, outside the timed region\n",
                 target_.c_str(), cubin.nvrtc_version.c_str(), request.name_expression.c_str(),
                 request.options.front().c_str(), cubin.compile_ms, cubin.image.size(), load_ms);
    if (!cubin.log.empty())
      std::fprintf(stderr, "%s: NVRTC log:\n%s\n", target_.c_str(), cubin.log.c_str());
    int blocks_per_sm = 0;
    AISP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, reinterpret_cast<const void*>(kernel_), ln_gelu_mask_nvrtc::kThreads, 0));
    if (blocks_per_sm < 1)
      throw std::runtime_error(target_ + ": no block of " +
                               std::to_string(ln_gelu_mask_nvrtc::kThreads) +
                               " threads of the NVRTC-compiled kernel fits on an SM; check its "
                               "register use (NVRTC option --ptxas-options=-v)");
    // One warp per row, every row its own warp: no grid-stride loop (the kernel says why).
    blocks_ = static_cast<unsigned int>((kRows + ln_gelu_mask_nvrtc::kWarpsPerBlock - 1) /
                                        ln_gelu_mask_nvrtc::kWarpsPerBlock);
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
                                     dim3(ln_gelu_mask_nvrtc::kThreads), arguments, 0,
                                     ctx.stream()));
    AISP_CHECK_LAUNCH();
  }

  void teardown(aisp::Context&) override {
    if (library_ != nullptr)
      AISP_CUDA_CHECK(cudaLibraryUnload(library_));
    library_ = nullptr;
    kernel_ = nullptr;
  }

 private:
  std::string target_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  unsigned int blocks_ = 0;
};

}  // namespace
}  // namespace aisp::ch14
