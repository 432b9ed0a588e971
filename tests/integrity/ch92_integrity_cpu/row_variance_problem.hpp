// Test-only CPU problem for the varied-inputs cheat: the variance of each row of a 1024 x 1024
// fp32 matrix in host memory, with its float64 reference. The baseline takes two passes (the
// mean, then the squared deviations from it); on inputs near zero a one-pass formula agrees with
// it to ~3e-6, on inputs away from zero it does not.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::integrity_cpu {

struct RowVarianceProblem : Benchmark {
  static constexpr std::size_t kRows = 1024, kCols = 1024;
  Tensor x, var;

  Signature signature() const override {
    return Signature().set("rows", kRows).set("cols", kCols).set("dtype", DType::f32);
  }
  Requirements requirements() const override { return Requirements::cpu(); }
  void setup(Context& ctx) override {
    x = ctx.alloc("x", DType::f32, kRows * kCols, Role::input, Memory::host);
    var = ctx.alloc("var", DType::f32, kRows, Role::output, Memory::host);
    ctx.fill_uniform(x, -1.0, 1.0);
  }
  std::vector<Tensor> outputs() const override { return {var}; }
  ReferenceFunction reference() const override {
    return [](const HostInputs& in, std::size_t, std::size_t row) {
      const auto values = in.f32("x").subspan(row * kCols, kCols);
      double mean = 0;
      for (const float v : values)
        mean += v;
      mean /= kCols;
      double sum = 0;
      for (const float v : values)
        sum += (v - mean) * (v - mean);
      return sum / kCols;
    };
  }
  Workload workload() const override {
    Workload w;
    w.bytes = 4.0 * (kRows * kCols + kRows);
    w.memory_ceiling = Ceiling::host_memory_bandwidth;
    w.compute_ceiling = Ceiling::none;
    return w;
  }
  TimingMode timing_mode() const override { return TimingMode::direct; }

 protected:
  const float* row(std::size_t r) const { return x.as<const float>() + r * kCols; }
};

// The honest two-pass variance, in fp32.
struct TwoPassVariance : RowVarianceProblem {
  void run(Context&) override {
    float* out = var.as<float>();
    for (std::size_t r = 0; r < kRows; ++r) {
      float mean = 0;
      for (std::size_t c = 0; c < kCols; ++c)
        mean += row(r)[c];
      mean /= static_cast<float>(kCols);
      float sum = 0;
      for (std::size_t c = 0; c < kCols; ++c)
        sum += (row(r)[c] - mean) * (row(r)[c] - mean);
      out[r] = sum / static_cast<float>(kCols);
    }
  }
};

}  // namespace aisp::integrity_cpu
