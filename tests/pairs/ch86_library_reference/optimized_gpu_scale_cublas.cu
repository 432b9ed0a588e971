// The library reference of ch86:gpu_scale ("cuBLAS"): y = x by a device copy, then cublasSscal
// scales y in place by 2 on the context's handle (bound to ctx.stream()).
#include <cublas_v2.h>

#include "gpu_scale_problem.cuh"

namespace aisp::test_pairs {
struct GpuScaleCublas : GpuScale {
  void run(Context& ctx) override {
    AISP_CUDA_CHECK(cudaMemcpyAsync(y.data(), x.data(), kCount * sizeof(float),
                                    cudaMemcpyDeviceToDevice, ctx.stream()));
    const float two = 2.0f;
    AISP_CUBLAS_CHECK(cublasSscal(ctx.cublas(), static_cast<int>(kCount), &two, y.as<float>(), 1));
  }
  std::string library_reference() const override { return "cuBLAS"; }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::GpuScaleCublas)
