// The problem both occupancy_block_size variants solve: z = a·x + y over 2^27 floats (512 MiB per
// array, 1.5 GiB of traffic, ~26× the H200's 60 MiB L2), one element per thread. The kernel is
// written once, here: the variants launch the same kernel and differ only in the block size, and
// so in how many warps each SM can keep resident. Each thread issues two 4-byte loads and one
// store and has nothing else to do while they are in flight, so the only way to cover memory
// latency is to have many warps resident: this is the kernel occupancy matters most for.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch06 {

namespace {

__global__ void axpy_one_per_thread(float a, const float* __restrict__ x,
                                    const float* __restrict__ y, float* __restrict__ z,
                                    std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count)
    z[i] = fmaf(a, x[i], y[i]);
}

}  // namespace

class OccupancyBlockSizeProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 27;
  static constexpr float kScale = 0.75f;  // a

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("dtype", aisp::DType::f32).set("a", static_cast<double>(kScale));
    return s;
  }

  void setup(aisp::Context& ctx) override {
    x_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    y_ = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::input);
    z_ = ctx.alloc("z", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(x_);
    ctx.fill_uniform(y_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {z_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 3.0 * static_cast<double>(kCount) * sizeof(float);  // x, y read; z written
    w.flops = 2.0 * static_cast<double>(kCount);                  // one FMA per element
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    return w;
  }

 protected:
  // One element per thread: as many blocks as it takes to cover kCount.
  void launch(int threads_per_block, cudaStream_t stream) const {
    const auto blocks = static_cast<unsigned>((kCount + threads_per_block - 1) / threads_per_block);
    axpy_one_per_thread<<<blocks, threads_per_block, 0, stream>>>(
        kScale, x_.as<const float>(), y_.as<const float>(), z_.as<float>(), kCount);
    AISP_CHECK_LAUNCH();
  }

 private:
  aisp::Tensor x_, y_, z_;
};

}  // namespace aisp::ch06
