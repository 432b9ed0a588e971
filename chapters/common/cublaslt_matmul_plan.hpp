// A cuBLASLt matmul, planned once and run many times: the library reference beside which the
// hand-written GEMMs are measured. The plan owns a cuBLASLt handle, the operation descriptor and
// the four matrix layouts, and holds the algorithm the heuristic ranks first for them under a
// workspace limit. Create it in setup, run it in the timed region, destroy it in teardown; the
// workspace is the caller's (a harness scratch allocation), so the plan allocates no device memory.
//
//   auto plan = CublasLtMatmulPlan::row_major_tn(m, n, k, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF);
//   // optional: attributes that change the algorithm choice, before choosing it
//   plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue);
//   plan.choose_algorithm(workspace_limit_bytes);   // throws when no algorithm fits
//   plan.run(&alpha, a, b, &beta, c, d, workspace, workspace_bytes, stream);
//
// FP8 work extends it through the same attribute calls (scale pointers, scale modes, amax) and
// the types of the description; the row-major factory covers the "TN" form FP8 requires on
// Hopper (both operands K-major).
// Only the CUDA toolkit's headers and cuBLASLt: errors are std::runtime_error naming the call,
// the status and what to check.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

// Inside the suite the plan's "no algorithm" is aisp::Unavailable (the variant is skipped with
// cuBLASLt's answer as the reason: this GPU or cuBLASLt cannot run the request); standalone probes
// compiled without the harness's headers get a plain std::runtime_error.
#if __has_include(<aisp/benchmark.hpp>)
#include <aisp/benchmark.hpp>
#endif

namespace aisp::common {

#if __has_include(<aisp/benchmark.hpp>)
using CublasLtNoAlgorithm = aisp::Unavailable;
#else
using CublasLtNoAlgorithm = std::runtime_error;
#endif

// cuBLASLt's column-major view: D (m×n) = alpha · op(A) (m×k) · op(B) (k×n) + beta · C.
struct CublasLtMatmulDescription {
  std::uint64_t m = 0, n = 0, k = 0;
  cublasOperation_t trans_a = CUBLAS_OP_N, trans_b = CUBLAS_OP_N;
  cudaDataType_t a_type = CUDA_R_16BF, b_type = CUDA_R_16BF;
  cudaDataType_t c_type = CUDA_R_16BF, d_type = CUDA_R_16BF;
  std::int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;  // column-major leading dimensions
  cublasComputeType_t compute_type = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale_type = CUDA_R_32F;  // the type of alpha and beta
};

class CublasLtMatmulPlan {
 public:
  // Row-major C (M×N) = A (M×K, row-major) · Bᵀ, with B given as N×K row-major (K-major: the "TN"
  // form wgmma and FP8 prefer). In cuBLASLt's column-major terms that is Cᵀ (N×M) = op(B)·op(A)
  // with B transposed: the factory sets that up, and run() takes A and B in row-major terms.
  static CublasLtMatmulPlan row_major_tn(std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                         cudaDataType_t ab_type, cudaDataType_t c_type,
                                         cudaDataType_t d_type,
                                         cublasComputeType_t compute = CUBLAS_COMPUTE_32F) {
    CublasLtMatmulDescription d;
    d.m = n;  // column-major D is Cᵀ: N rows, M columns
    d.n = m;
    d.k = k;
    d.trans_a = CUBLAS_OP_T;  // cuBLASLt's A is our B: K×N column-major (= N×K row-major), ld K
    d.trans_b = CUBLAS_OP_N;  // cuBLASLt's B is our A: K×M column-major (= M×K row-major), ld K
    d.a_type = ab_type;
    d.b_type = ab_type;
    d.c_type = c_type;
    d.d_type = d_type;
    d.lda = static_cast<std::int64_t>(k);
    d.ldb = static_cast<std::int64_t>(k);
    d.ldc = static_cast<std::int64_t>(n);
    d.ldd = static_cast<std::int64_t>(n);
    d.compute_type = compute;
    return CublasLtMatmulPlan(d, /*operands_swapped=*/true);
  }

  explicit CublasLtMatmulPlan(const CublasLtMatmulDescription& d, bool operands_swapped = false)
      : description_(d), operands_swapped_(operands_swapped) {
    try {
      create();
    } catch (...) {
      release();  // the destructor does not run for a constructor that throws
      throw;
    }
  }

  CublasLtMatmulPlan(CublasLtMatmulPlan&& other) noexcept { *this = std::move(other); }
  CublasLtMatmulPlan& operator=(CublasLtMatmulPlan&& other) noexcept {
    if (this != &other) {
      release();
      description_ = other.description_;
      operands_swapped_ = other.operands_swapped_;
      handle_ = std::exchange(other.handle_, nullptr);
      operation_ = std::exchange(other.operation_, nullptr);
      a_layout_ = std::exchange(other.a_layout_, nullptr);
      b_layout_ = std::exchange(other.b_layout_, nullptr);
      c_layout_ = std::exchange(other.c_layout_, nullptr);
      d_layout_ = std::exchange(other.d_layout_, nullptr);
      algorithm_ = other.algorithm_;
      has_algorithm_ = std::exchange(other.has_algorithm_, false);
      workspace_bytes_ = other.workspace_bytes_;
    }
    return *this;
  }
  CublasLtMatmulPlan(const CublasLtMatmulPlan&) = delete;
  CublasLtMatmulPlan& operator=(const CublasLtMatmulPlan&) = delete;
  ~CublasLtMatmulPlan() { release(); }

  // An attribute of the operation (epilogue, bias pointer, scale pointers, fast accumulation...).
  // Set those that change the algorithm choice before choose_algorithm().
  template <class T>
  void set_operation_attribute(cublasLtMatmulDescAttributes_t attribute, const T& value) {
    check(cublasLtMatmulDescSetAttribute(operation_, attribute, &value, sizeof(value)),
          "cublasLtMatmulDescSetAttribute");
  }

  // Asks the heuristic for the best algorithm that needs at most `workspace_limit_bytes`.
  void choose_algorithm(std::size_t workspace_limit_bytes) {
    cublasLtMatmulPreference_t preference = nullptr;
    check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t status =
        cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &workspace_limit_bytes, sizeof(workspace_limit_bytes));
    if (status == CUBLAS_STATUS_SUCCESS)
      status = cublasLtMatmulAlgoGetHeuristic(handle_, operation_, a_layout_, b_layout_, c_layout_,
                                              d_layout_, preference, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(preference);
    check(status, "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0)
      throw CublasLtNoAlgorithm(
          "cuBLASLt found no algorithm for a " + std::to_string(description_.m) + "x" +
          std::to_string(description_.n) + "x" + std::to_string(description_.k) +
          " matmul within " + std::to_string(workspace_limit_bytes) +
          " bytes of workspace: check the types, layouts and attributes (set CUBLASLT_LOG_LEVEL=5 "
          "for cuBLASLt's reasons), or allow more workspace");
    algorithm_ = result.algo;
    workspace_bytes_ = result.workspaceSize;
    has_algorithm_ = true;
  }

  // Workspace the chosen algorithm needs (valid after choose_algorithm).
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  const CublasLtMatmulDescription& description() const { return description_; }

  // D = alpha · A·B + beta · C on `stream`, with the chosen algorithm. For a row_major_tn plan, a
  // and b are the row-major A (M×K) and B (N×K). Returns cuBLASLt's status (the caller checks).
  cublasStatus_t run(const void* alpha, const void* a, const void* b, const void* beta,
                     const void* c, void* d, void* workspace, std::size_t workspace_bytes,
                     cudaStream_t stream) const {
    if (!has_algorithm_)
      return CUBLAS_STATUS_NOT_INITIALIZED;
    const void* first = operands_swapped_ ? b : a;
    const void* second = operands_swapped_ ? a : b;
    return cublasLtMatmul(handle_, operation_, alpha, first, a_layout_, second, b_layout_, beta, c,
                          c_layout_, d, d_layout_, &algorithm_, workspace, workspace_bytes, stream);
  }

 private:
  void create() {
    const CublasLtMatmulDescription& d = description_;
    check(cublasLtCreate(&handle_), "cublasLtCreate");
    check(cublasLtMatmulDescCreate(&operation_, d.compute_type, d.scale_type),
          "cublasLtMatmulDescCreate");
    set_operation_attribute(CUBLASLT_MATMUL_DESC_TRANSA, d.trans_a);
    set_operation_attribute(CUBLASLT_MATMUL_DESC_TRANSB, d.trans_b);
    // Stored shapes: op(A) is m×k, so A itself is k×m when transposed.
    const bool ta = d.trans_a != CUBLAS_OP_N, tb = d.trans_b != CUBLAS_OP_N;
    check(cublasLtMatrixLayoutCreate(&a_layout_, d.a_type, ta ? d.k : d.m, ta ? d.m : d.k, d.lda),
          "cublasLtMatrixLayoutCreate(A)");
    check(cublasLtMatrixLayoutCreate(&b_layout_, d.b_type, tb ? d.n : d.k, tb ? d.k : d.n, d.ldb),
          "cublasLtMatrixLayoutCreate(B)");
    check(cublasLtMatrixLayoutCreate(&c_layout_, d.c_type, d.m, d.n, d.ldc),
          "cublasLtMatrixLayoutCreate(C)");
    check(cublasLtMatrixLayoutCreate(&d_layout_, d.d_type, d.m, d.n, d.ldd),
          "cublasLtMatrixLayoutCreate(D)");
  }

  static void check(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(std::string(call) + " failed: " + cublasLtGetStatusName(status) +
                               " (" + cublasLtGetStatusString(status) + ")");
  }

  void release() noexcept {
    if (d_layout_)
      cublasLtMatrixLayoutDestroy(d_layout_);
    if (c_layout_)
      cublasLtMatrixLayoutDestroy(c_layout_);
    if (b_layout_)
      cublasLtMatrixLayoutDestroy(b_layout_);
    if (a_layout_)
      cublasLtMatrixLayoutDestroy(a_layout_);
    if (operation_)
      cublasLtMatmulDescDestroy(operation_);
    if (handle_)
      cublasLtDestroy(handle_);
    d_layout_ = c_layout_ = b_layout_ = a_layout_ = nullptr;
    operation_ = nullptr;
    handle_ = nullptr;
  }

  CublasLtMatmulDescription description_{};
  bool operands_swapped_ = false;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr;
  cublasLtMatrixLayout_t c_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulAlgo_t algorithm_{};
  bool has_algorithm_ = false;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace aisp::common
