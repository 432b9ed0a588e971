// The BF16 GEMM ladder's kernels, one .cu file per rung (gemm_bf16_<rung>_kernel.cu), each
// compiled once and shared by the 8192³ and 4096³ pairs. Every rung has two host functions:
//   prepare_gemm_bf16_<rung>(args, device)  in setup: checks the shape against the kernel's tiles
//                                           (std::invalid_argument naming what to change),
//                                           raises the shared-memory limit, encodes TMA maps,
//                                           sizes the grid;
//   launch_gemm_bf16_<rung>(launch, stream) in run: one kernel launch; returns the launch's
//                                           cudaError_t for the caller to check.
// Layouts (the problem's, chapters/common/gemm_bf16_problem.cuh): A M×K row-major, B N×K
// row-major (K-major), C M×N row-major, all bf16, FP32 accumulation.
// These files depend on CUDA and chapters/common only (no harness headers), so
// scripts/probes/gemm_ladder_probe.cu can link them directly.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only)
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace aisp::ch10 {

struct GemmBf16Args {
  const __nv_bfloat16* a = nullptr;  // M×K row-major
  const __nv_bfloat16* b = nullptr;  // N×K row-major
  __nv_bfloat16* c = nullptr;        // M×N row-major
  int m = 0, n = 0, k = 0;
};

// Everything one launch needs, prepared in setup.
struct GemmBf16Launch {
  GemmBf16Args args;
  CUtensorMap a_map{};  // TMA rungs: A in boxes of (block rows × 64 k), 128-byte swizzle
  CUtensorMap b_map{};  // TMA rungs: B likewise
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;  // dynamic shared memory
};

GemmBf16Launch prepare_gemm_bf16_simt(const GemmBf16Args& args, const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_simt(const GemmBf16Launch& launch, cudaStream_t stream);

GemmBf16Launch prepare_gemm_bf16_wmma(const GemmBf16Args& args, const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_wmma(const GemmBf16Launch& launch, cudaStream_t stream);

GemmBf16Launch prepare_gemm_bf16_mma_sync(const GemmBf16Args& args, const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_mma_sync(const GemmBf16Launch& launch, cudaStream_t stream);

GemmBf16Launch prepare_gemm_bf16_wgmma(const GemmBf16Args& args, const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_wgmma(const GemmBf16Launch& launch, cudaStream_t stream);

GemmBf16Launch prepare_gemm_bf16_wgmma_ring(const GemmBf16Args& args, const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_wgmma_ring(const GemmBf16Launch& launch, cudaStream_t stream);

GemmBf16Launch prepare_gemm_bf16_warp_specialized(const GemmBf16Args& args,
                                                  const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_warp_specialized(const GemmBf16Launch& launch, cudaStream_t stream);

GemmBf16Launch prepare_gemm_bf16_persistent(const GemmBf16Args& args, const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_persistent(const GemmBf16Launch& launch, cudaStream_t stream);

GemmBf16Launch prepare_gemm_bf16_cluster_multicast(const GemmBf16Args& args,
                                                   const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_cluster_multicast(const GemmBf16Launch& launch, cudaStream_t stream);

}  // namespace aisp::ch10
