// Test-only GPU problem of the library-reference pair ch86:gpu_scale (tests/gpu/
// test_library_reference_gpu.sh): y = 2x over 2^24 floats on the device, with its float64
// reference. The variants differ in how they launch the work: an under-occupied grid-stride
// kernel (the baseline), one thread per element, and cuBLAS (a device copy, then cublasSscal in
// place) as the pair's library reference. Moves 2 x 64 MiB per run (the library moves twice
// that); ceiling: HBM bandwidth.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::test_pairs {

struct GpuScale : Benchmark {
  static constexpr std::size_t kCount = std::size_t{1} << 24;
  Tensor x, y;

  Signature signature() const override {
    return Signature().set("n", kCount).set("dtype", DType::f32);
  }
  void setup(Context& ctx) override {
    x = ctx.alloc("x", DType::f32, kCount, Role::input);
    y = ctx.alloc("y", DType::f32, kCount, Role::output);
    ctx.fill_uniform(x, -1.0, 1.0);
  }
  std::vector<Tensor> outputs() const override { return {y}; }
  ReferenceFunction reference() const override {
    return [](const HostInputs& in, std::size_t, std::size_t i) {
      return 2.0 * static_cast<double>(in.f32("x")[i]);
    };
  }
  Workload workload() const override {
    Workload w;
    w.bytes = 2.0 * kCount * sizeof(float);
    w.flops = static_cast<double>(kCount);
    return w;
  }
};

// Launchers of the two kernels (gpu_scale_kernels.cu, compiled once).
void launch_scale_grid_stride(const float* x, float* y, std::size_t n, cudaStream_t stream);
void launch_scale_per_element(const float* x, float* y, std::size_t n, cudaStream_t stream);

}  // namespace aisp::test_pairs
