// The variants of the BF16 GEMM ladder, written once for both pairs: gemm_bf16 (8192³) and
// gemm_bf16_4k (4096³) instantiate the same rung classes with their shape, and every rung runs
// the same compiled kernel at both sizes (gemm_bf16_<rung>_kernel.cu). A variant file is then
// one line plus its comment:
//   using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::WgmmaRung, aisp::ch10::Square8192>;
//   AISP_VARIANT(Variant)
// The problem (layouts, inputs, reference, tolerance, workload) is
// chapters/common/gemm_bf16_problem.cuh; what each rung changes is in its kernel file's comment.
// Host code only: the variant files are .cpp, compiled by the host compiler (a fraction of an
// nvcc compile for two architectures), and reach the kernels through gemm_bf16_kernels.cuh.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "../common/cublaslt_matmul_plan.hpp"
#include "../common/gemm_bf16_problem.cuh"
#include "gemm_bf16_kernels.cuh"

namespace aisp::ch10 {

// The pairs' shapes.
struct Square8192 {
  static constexpr common::GemmShape shape{8192, 8192, 8192};
};
struct Square4096 {
  static constexpr common::GemmShape shape{4096, 4096, 4096};
};

// What each rung needs of the GPU. WMMA and mma.sync with bf16 need sm_80; wgmma and setmaxnreg
// exist only on sm_90a (Hopper): on Blackwell those rungs are skipped with the reason (their
// sm_100a code is a trap), and tcgen05 is a different programming model (see the README).
inline aisp::Requirements bf16_tensor_core_requirements() {
  aisp::Requirements r;
  r.min_compute_capability = 80;
  return r;
}
inline aisp::Requirements wgmma_requirements(bool clusters = false) {
  aisp::Requirements r;
  r.min_compute_capability = 90;
  r.features = {aisp::Feature::wgmma, aisp::Feature::tma};
  if (clusters)
    r.features.push_back(aisp::Feature::thread_block_clusters);
  return r;
}

// A rung: its requirements and its prepare/launch pair (gemm_bf16_kernels.cuh).
struct SimtRung {
  static aisp::Requirements requirements() { return {}; }
  static constexpr auto prepare = &prepare_gemm_bf16_simt;
  static constexpr auto launch = &launch_gemm_bf16_simt;
};
struct WmmaRung {
  static aisp::Requirements requirements() { return bf16_tensor_core_requirements(); }
  static constexpr auto prepare = &prepare_gemm_bf16_wmma;
  static constexpr auto launch = &launch_gemm_bf16_wmma;
};
struct MmaSyncRung {
  static aisp::Requirements requirements() { return bf16_tensor_core_requirements(); }
  static constexpr auto prepare = &prepare_gemm_bf16_mma_sync;
  static constexpr auto launch = &launch_gemm_bf16_mma_sync;
};
struct WgmmaRung {
  static aisp::Requirements requirements() { return wgmma_requirements(); }
  static constexpr auto prepare = &prepare_gemm_bf16_wgmma;
  static constexpr auto launch = &launch_gemm_bf16_wgmma;
};
struct WgmmaRingRung {
  static aisp::Requirements requirements() { return wgmma_requirements(); }
  static constexpr auto prepare = &prepare_gemm_bf16_wgmma_ring;
  static constexpr auto launch = &launch_gemm_bf16_wgmma_ring;
};
struct WarpSpecializedRung {
  static aisp::Requirements requirements() { return wgmma_requirements(); }
  static constexpr auto prepare = &prepare_gemm_bf16_warp_specialized;
  static constexpr auto launch = &launch_gemm_bf16_warp_specialized;
};
struct PersistentRung {
  static aisp::Requirements requirements() { return wgmma_requirements(); }
  static constexpr auto prepare = &prepare_gemm_bf16_persistent;
  static constexpr auto launch = &launch_gemm_bf16_persistent;
};
struct ClusterMulticastRung {
  static aisp::Requirements requirements() { return wgmma_requirements(/*clusters=*/true); }
  static constexpr auto prepare = &prepare_gemm_bf16_cluster_multicast;
  static constexpr auto launch = &launch_gemm_bf16_cluster_multicast;
};

// A hand-written rung at a pair's shape: the launch (tensor maps, grid, shared memory) is
// prepared in setup; run() is the one launch.
template <class Rung, class Size>
class GemmBf16Rung : public common::Bf16GemmProblem {
 public:
  GemmBf16Rung() : Bf16GemmProblem(Size::shape) {}

  aisp::Requirements requirements() const override { return Rung::requirements(); }

  void setup(aisp::Context& ctx) override {
    Bf16GemmProblem::setup(ctx);
    launch_ = Rung::prepare(GemmBf16Args{a(), b(), c(), shape().m, shape().n, shape().k},
                            ctx.device_properties());
  }

  void run(aisp::Context& ctx) override { AISP_CUDA_CHECK(Rung::launch(launch_, ctx.stream())); }

 private:
  GemmBf16Launch launch_;
};

// The library reference: cuBLASLt with the algorithm its heuristic ranks first for this shape,
// layouts and types (bf16 in and out, fp32 accumulation and scale), planned in setup. Its
// workspace is a harness scratch allocation, so the plan holds no device memory of its own; the
// handle is created in setup and destroyed in teardown.
template <class Size>
class GemmBf16Cublaslt : public common::Bf16GemmProblem {
 public:
  // cuBLAS's recommendation for Hopper; the heuristic picks among algorithms that fit in it.
  static constexpr std::size_t kWorkspaceLimit = 32u << 20;

  GemmBf16Cublaslt() : Bf16GemmProblem(Size::shape) {}

  aisp::Requirements requirements() const override { return bf16_tensor_core_requirements(); }

  void setup(aisp::Context& ctx) override {
    Bf16GemmProblem::setup(ctx);
    const common::GemmShape& s = shape();
    plan_.emplace(common::CublasLtMatmulPlan::row_major_tn(
        static_cast<std::uint64_t>(s.m), static_cast<std::uint64_t>(s.n),
        static_cast<std::uint64_t>(s.k), CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF));
    plan_->choose_algorithm(kWorkspaceLimit);
    workspace_bytes_ = plan_->workspace_bytes();
    if (workspace_bytes_ > 0)
      workspace_ =
          ctx.alloc("cublaslt_workspace", aisp::DType::u8, workspace_bytes_, aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const float alpha = 1.0f, beta = 0.0f;
    AISP_CUBLAS_CHECK(plan_->run(&alpha, a(), b(), &beta, c(), c(),
                                 workspace_bytes_ > 0 ? workspace_.data() : nullptr,
                                 workspace_bytes_, ctx.stream()));
  }

  void teardown(aisp::Context&) override { plan_.reset(); }

  std::string library_reference() const override { return "cuBLASLt"; }

 private:
  std::optional<common::CublasLtMatmulPlan> plan_;
  aisp::Tensor workspace_;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace aisp::ch10
