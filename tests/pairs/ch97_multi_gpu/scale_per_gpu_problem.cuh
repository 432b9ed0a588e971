// Test-only multi-GPU problem: GPU d holds x_d (1M floats, its own values) and must produce
// y_d = 2 x_d + 1 on itself. Needs 2 GPUs; with --gpus N it runs on N.
#pragma once

#include <aisp/aisp.hpp>

#include <string>
#include <vector>

namespace aisp::test_pairs {

struct ScalePerGpu : Benchmark {
  static constexpr std::size_t kCount = std::size_t{1} << 20;

  Signature signature() const override {
    Signature s;
    s.set("n", kCount).set("dtype", DType::f32);
    return s;
  }
  Requirements requirements() const override {
    Requirements r;
    r.min_gpus = 2;
    return r;
  }
  void setup(Context& ctx) override {
    for (int d = 0; d < ctx.device_count(); ++d) {
      x.push_back(ctx.alloc("x_" + std::to_string(d), DType::f32, kCount, Role::input,
                            Memory::device, d));
      y.push_back(ctx.alloc("y_" + std::to_string(d), DType::f32, kCount, Role::output,
                            Memory::device, d));
      ctx.fill_uniform(x.back());
    }
  }
  std::vector<Tensor> outputs() const override { return y; }
  // Read before setup, when the run's GPU count is not known: stated for min_gpus (2).
  Workload workload() const override {
    Workload w;
    w.bytes = 2.0 * 2.0 * static_cast<double>(kCount * sizeof(float));
    w.flops = 2.0 * 2.0 * static_cast<double>(kCount);
    return w;
  }

 protected:
  std::vector<Tensor> x, y;
};

// y = 2x + 1, one launch on GPU `device`'s stream; `grid_stride` picks the loop shape.
void launch_scale(const float* x, float* y, std::size_t n, cudaStream_t stream, bool grid_stride);

}  // namespace aisp::test_pairs
