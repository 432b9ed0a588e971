// The fp32 matrix product C = A·B that several chapters time, written once: the inputs (uniform in
// [-1, 1), named "a" and "b"), the output "c", the float64 reference, the workload and the
// signature. A chapter's problem class fixes the shape and layout and states its own tolerance
// (the reasoning depends on K and on how its variants sum): ch01's gemm_batched (40 products of
// 512³, column-major, cuBLAS) and ch07's matmul_tiled (4096³, row-major, hand-written kernels).
//
// Batch > 1: `Batch` products C_b = A_b·B_b, the matrices of each operand stored back to back
// (batch stride = one matrix), and the signature names the batch. Every product reads A and B once
// and writes C once (beta = 0: C is never read); 2·M·N·K FLOPs each; measured against HBM
// bandwidth and the FP32 SIMT ceiling (no tensor cores: fp32 math, no TF32).
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace aisp::common {

enum class MatrixLayout { row_major, column_major };

template <int M, int N, int K, int Batch, MatrixLayout Layout>
class F32MatmulProblem : public aisp::Benchmark {
  static_assert(M > 0 && N > 0 && K > 0 && Batch > 0, "a product of at least one element");

 public:
  static constexpr int kM = M;
  static constexpr int kN = N;
  static constexpr int kK = K;
  static constexpr int kBatch = Batch;
  // Elements between consecutive matrices of one operand (and the size of one matrix).
  static constexpr long long kStrideA = static_cast<long long>(M) * K;
  static constexpr long long kStrideB = static_cast<long long>(K) * N;
  static constexpr long long kStrideC = static_cast<long long>(M) * N;

  // `math`: the signature's name for how the product is computed ("fp32", "fp32-simt").
  explicit F32MatmulProblem(std::string math) : math_(std::move(math)) {}

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("m", kM).set("n", kN).set("k", kK);
    if (kBatch > 1)
      s.set("batch", kBatch);
    s.set("dtype", aisp::DType::f32).set("layout", layout_name()).set("math", math_);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    a_ = ctx.alloc("a", DType::f32, static_cast<std::size_t>(kStrideA) * kBatch, Role::input);
    b_ = ctx.alloc("b", DType::f32, static_cast<std::size_t>(kStrideB) * kBatch, Role::input);
    c_ = ctx.alloc("c", DType::f32, static_cast<std::size_t>(kStrideC) * kBatch, Role::output);
    ctx.fill_uniform(a_);
    ctx.fill_uniform(b_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {c_}; }

  // The float64 product, element by element, for the precision check: an fp32 problem must not
  // be solved in TF32 or BF16. Each dot product is summed over k in ascending order.
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const auto a = in.f32("a");
      const auto b = in.f32("b");
      const std::size_t batch = index / kStrideC, within = index % kStrideC;
      const float* a_b = a.data() + batch * kStrideA;
      const float* b_b = b.data() + batch * kStrideB;
      double sum = 0;
      if constexpr (Layout == MatrixLayout::column_major) {
        // Element (i, j) of C_b at j·M + i; A(i, k) at k·M + i; B(k, j) at j·K + k.
        const std::size_t i = within % kM, j = within / kM;
        for (std::size_t k = 0; k < kK; ++k)
          sum += static_cast<double>(a_b[k * kM + i]) * static_cast<double>(b_b[j * kK + k]);
      } else {
        // Element (row, col) of C_b at row·N + col; A(row, k) at row·K + k; B(k, col) at k·N + col.
        const std::size_t row = within / kN, col = within % kN;
        for (std::size_t k = 0; k < kK; ++k)
          sum += static_cast<double>(a_b[row * kK + k]) * static_cast<double>(b_b[k * kN + col]);
      }
      return sum;
    };
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.flops = 2.0 * kM * kN * static_cast<double>(kK) * kBatch;
    // A and B read once, C written once.
    w.bytes = 4.0 * static_cast<double>(kStrideA + kStrideB + kStrideC) * kBatch;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* a() const { return a_.as<const float>(); }
  const float* b() const { return b_.as<const float>(); }
  float* c() const { return c_.as<float>(); }
  static constexpr int m() { return kM; }
  static constexpr int n() { return kN; }
  static constexpr int k() { return kK; }

 private:
  static constexpr const char* layout_name() {
    return Layout == MatrixLayout::column_major ? "column-major" : "row-major";
  }

  std::string math_;
  aisp::Tensor a_, b_, c_;
};

}  // namespace aisp::common
