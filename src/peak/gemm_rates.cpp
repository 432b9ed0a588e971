// GEMM rates through the vendor libraries, the figures the compute ceilings come from: square
// n×n×n GEMMs (8192³ by default) on random inputs in [-1, 1], fp32 accumulate, beta = 0. FLOPs
// counted: 2·n³ per GEMM. All through cuBLASLt, timing the fastest of the heuristic's candidate
// algorithms over both layouts; FP8 e4m3 needs the TN layout (A transposed). The stored rate is the
// burst after an idle pause (measure_gemm_rate says why); the sustained rate goes in the method.
// After timing, a few output elements are compared with float64 dot products of the same inputs:
// a GEMM that computed the wrong thing gets no rate.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "aisp/dtype.hpp"
#include "core/element_decoding.hpp"
#include "core/random_fill.hpp"
#include "measure/statistics.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

constexpr std::size_t kLtWorkspaceBytes = std::size_t{32} << 20;  // cuBLASLt's Hopper advice
constexpr char kNameA[] = "bench_peak.gemm_a";
constexpr char kNameB[] = "bench_peak.gemm_b";

struct GemmTypes {
  DType input;
  DType output;
  cudaDataType_t cuda_input;
  cudaDataType_t cuda_output;
  const char* label;
  double relative_tolerance;  // of sum |a·b| over the dot product: accumulation error
  double output_rounding;     // relative rounding of the stored output
};

GemmTypes gemm_types(GemmPrecision precision) {
  switch (precision) {
  case GemmPrecision::fp32:
    return {DType::f32, DType::f32, CUDA_R_32F, CUDA_R_32F, "FP32", 1e-3, 0};
  case GemmPrecision::tf32:
    return {DType::f32, DType::f32, CUDA_R_32F, CUDA_R_32F, "TF32", 1e-3, 0};
  case GemmPrecision::bf16:
    return {DType::bf16, DType::bf16, CUDA_R_16BF, CUDA_R_16BF, "BF16", 1e-3, 1.0 / 256};
  case GemmPrecision::fp16:
    return {DType::f16, DType::f16, CUDA_R_16F, CUDA_R_16F, "FP16", 1e-3, 1.0 / 2048};
  case GemmPrecision::fp8_e4m3:
    return {DType::fp8_e4m3, DType::bf16, CUDA_R_8F_E4M3, CUDA_R_16BF, "FP8 e4m3", 1e-2, 1.0 / 256};
  }
  throw std::invalid_argument("unknown GemmPrecision");
}

std::string library_version(std::size_t version) {
  return fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
}

// Owners of the cuBLASLt objects; their destroy calls' status is ignored for the same
// reason as in core/cuda_handles.hpp.
void destroy_lt(cublasLtHandle_t handle) { static_cast<void>(cublasLtDestroy(handle)); }
void destroy_lt_desc(cublasLtMatmulDesc_t desc) {
  static_cast<void>(cublasLtMatmulDescDestroy(desc));
}
void destroy_lt_layout(cublasLtMatrixLayout_t layout) {
  static_cast<void>(cublasLtMatrixLayoutDestroy(layout));
}
void destroy_lt_preference(cublasLtMatmulPreference_t preference) {
  static_cast<void>(cublasLtMatmulPreferenceDestroy(preference));
}
using LtOwner = CudaOwner<cublasLtHandle_t, destroy_lt>;
using LtDescOwner = CudaOwner<cublasLtMatmulDesc_t, destroy_lt_desc>;
using LtLayoutOwner = CudaOwner<cublasLtMatrixLayout_t, destroy_lt_layout>;
using LtPreferenceOwner = CudaOwner<cublasLtMatmulPreference_t, destroy_lt_preference>;

struct GemmOperands {
  int n = 0;
  GemmTypes types;
  DeviceMemory a, b;
  DeviceMemory c;  // C: never read (beta 0) but must be valid, of D's type (bf16 for FP8 output)
  DeviceMemory d;  // D, the output: a buffer of its own (FP8 kernels refuse D aliasing C)
  bool a_transposed = false;  // TN: A is stored n×n column-major and used as its transpose
};

cublasComputeType_t compute_type(GemmPrecision precision) {
  return precision == GemmPrecision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}
const char* compute_name(GemmPrecision precision) {
  return precision == GemmPrecision::tf32 ? "CUBLAS_COMPUTE_32F_FAST_TF32" : "CUBLAS_COMPUTE_32F";
}

const char* status_text(cublasStatus_t status) { return cublasGetStatusString(status); }

// One GEMM as cuBLASLt sees it (types, layout, compute type) with the algorithms its heuristic
// offers. FP8 takes no scale pointers: cuBLASLt 13.1 on the H200 refuses every FP8 algorithm
// (CUBLAS_STATUS_NOT_SUPPORTED from cublasLtMatmul, silently) once A/B scale pointers are set,
// and runs them without; unset scales are 1.
class LtGemm {
 public:
  static constexpr int kCandidates = 16;

  LtGemm(GemmPrecision precision, const GemmOperands& operands)
      : operands_(operands), workspace_(kLtWorkspaceBytes),
        a_transposed_(operands.a_transposed) {
    cublasLtHandle_t raw_handle = nullptr;
    AISP_CUBLAS_CHECK(cublasLtCreate(&raw_handle));
    handle_ = LtOwner(raw_handle);
    cublasLtMatmulDesc_t raw_desc = nullptr;
    AISP_CUBLAS_CHECK(cublasLtMatmulDescCreate(&raw_desc, compute_type(precision), CUDA_R_32F));
    desc_ = LtDescOwner(raw_desc);
    const cublasOperation_t a_op = operands.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t b_op = CUBLAS_OP_N;
    AISP_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_.get(), CUBLASLT_MATMUL_DESC_TRANSA,
                                                     &a_op, sizeof(a_op)));
    AISP_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_.get(), CUBLASLT_MATMUL_DESC_TRANSB,
                                                     &b_op, sizeof(b_op)));
    const int n = operands.n;
    a_layout_ = make_layout(operands.types.cuda_input, n);
    b_layout_ = make_layout(operands.types.cuda_input, n);
    c_layout_ = make_layout(operands.types.cuda_output, n);
    cublasLtMatmulPreference_t raw_preference = nullptr;
    AISP_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw_preference));
    const LtPreferenceOwner preference(raw_preference);
    const std::uint64_t workspace_bytes = kLtWorkspaceBytes;
    AISP_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
        sizeof(workspace_bytes)));
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
        handle_.get(), desc_.get(), a_layout_.get(), b_layout_.get(), c_layout_.get(),
        c_layout_.get(), preference.get(), kCandidates, heuristics_.data(), &found_);
    if (status != CUBLAS_STATUS_SUCCESS || found_ == 0)
      throw std::runtime_error(fmt::format(
          "cuBLASLt offers no algorithm for a {} {}³ GEMM ({} in, {} out, {}, {}) on this GPU: "
          "cublasLtMatmulAlgoGetHeuristic returned {} with {} candidates",
          operands.types.label, n, dtype_name(operands.types.input),
          dtype_name(operands.types.output), compute_name(precision), layout_name(),
          status_text(status), found_));
  }

  const char* layout_name() const { return a_transposed_ ? "TN" : "NN"; }
  bool a_transposed() const { return a_transposed_; }
  int found() const { return found_; }

  cublasStatus_t run(int candidate, cudaStream_t stream) const {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    return cublasLtMatmul(handle_.get(), desc_.get(), &alpha, operands_.a.get(), a_layout_.get(),
                          operands_.b.get(), b_layout_.get(), &beta, operands_.c.get(),
                          c_layout_.get(), operands_.d.get(), c_layout_.get(),
                          &heuristics_[static_cast<std::size_t>(candidate)].algo, workspace_.get(),
                          kLtWorkspaceBytes, stream);
  }

  // A short trial of every candidate (one call, then the median of five): the fastest one and
  // its median, or -1 with what each candidate said when none runs.
  std::pair<int, double> fastest_candidate(cudaStream_t stream, std::string* failures) const {
    const RepetitionPlan trial{5, 0.0};
    int best = -1;
    double best_ms = 0;
    for (int i = 0; i < found_; ++i) {
      if (heuristics_[static_cast<std::size_t>(i)].state != CUBLAS_STATUS_SUCCESS) continue;
      if (const cublasStatus_t status = run(i, stream); status != CUBLAS_STATUS_SUCCESS) {
        *failures += fmt::format("{}{} candidate {}: {}", failures->empty() ? "" : "; ",
                                 layout_name(), i, status_text(status));
        continue;
      }
      const double ms = median(
          time_stream_repetitions(stream, trial, [&] { AISP_CUBLAS_CHECK(run(i, stream)); }));
      if (best < 0 || ms < best_ms) {
        best = i;
        best_ms = ms;
      }
    }
    return {best, best_ms};
  }

 private:
  static LtLayoutOwner make_layout(cudaDataType_t type, int n) {
    cublasLtMatrixLayout_t layout = nullptr;
    AISP_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(n),
                                                 static_cast<std::uint64_t>(n), n));
    return LtLayoutOwner(layout);
  }

  const GemmOperands& operands_;
  DeviceMemory workspace_;
  bool a_transposed_ = false;
  LtOwner handle_;
  LtDescOwner desc_;
  LtLayoutOwner a_layout_, b_layout_, c_layout_;
  std::array<cublasLtMatmulHeuristicResult_t, kCandidates> heuristics_{};
  int found_ = 0;
};

// Copies n elements of a device matrix, `stride` elements apart, to the host as doubles.
std::vector<double> read_strided(const DeviceMemory& matrix, DType dtype, std::size_t first,
                                 std::size_t stride, int n, cudaStream_t stream) {
  const std::size_t size = dtype_size(dtype);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(n) * size);
  AISP_CUDA_CHECK(cudaMemcpy2DAsync(bytes.data(), size, matrix.as<unsigned char>() + first * size,
                                    stride * size, size, static_cast<std::size_t>(n),
                                    cudaMemcpyDeviceToHost, stream));
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = decode_element(dtype, bytes.data(), i);
  }
  return values;
}

// Compares C(i, j) at a few places with a float64 dot product of row i of op(A) and column j of
// B. Throws, naming the place and the numbers, when one is off or not finite.
void spot_check(const GemmOperands& operands, cudaStream_t stream) {
  const int n = operands.n;
  const std::size_t size_n = static_cast<std::size_t>(n);
  const std::array<std::array<int, 2>, 4> places{{{0, 0}, {n - 1, n - 1}, {n / 2, 1}, {3, n - 3}}};
  for (const auto& [row, column] : places) {
    // Column-major: op(A)(i, p) is A[i + p·n], or A[p + i·n] when A is used transposed.
    const std::vector<double> a_row =
        operands.a_transposed ? read_strided(operands.a, operands.types.input,
                                             static_cast<std::size_t>(row) * size_n, 1, n, stream)
                              : read_strided(operands.a, operands.types.input,
                                             static_cast<std::size_t>(row), size_n, n, stream);
    const std::vector<double> b_column = read_strided(
        operands.b, operands.types.input, static_cast<std::size_t>(column) * size_n, 1, n, stream);
    const double got =
        read_strided(operands.d, operands.types.output,
                     static_cast<std::size_t>(row) + static_cast<std::size_t>(column) * size_n, 1,
                     1, stream)
            .front();
    double expected = 0;
    double magnitude = 0;
    for (int p = 0; p < n; ++p) {
      expected += a_row[static_cast<std::size_t>(p)] * b_column[static_cast<std::size_t>(p)];
      magnitude +=
          std::abs(a_row[static_cast<std::size_t>(p)] * b_column[static_cast<std::size_t>(p)]);
    }
    const double tolerance = operands.types.relative_tolerance * magnitude +
                             operands.types.output_rounding * std::abs(expected) + 1e-6;
    if (!std::isfinite(got) || std::abs(got - expected) > tolerance) {
      throw std::runtime_error(fmt::format(
          "the {} GEMM {}³ computed C({}, {}) = {} where a float64 dot product of the same inputs "
          "gives {} (allowed difference {:.3g}): the GEMM is wrong, so its time is not a rate. "
          "Report this as a bug.",
          operands.types.label, n, row, column, got, expected, tolerance));
    }
  }
}

}  // namespace

std::optional<std::string> gemm_unsupported(GemmPrecision precision, const GpuUnderTest& gpu) {
  const int cc = gpu.compute_capability;
  if (precision == GemmPrecision::fp8_e4m3 && cc < 89) {
    return fmt::format("FP8 tensor cores need compute capability 8.9 or newer; {} is {}.{}",
                       gpu.name, cc / 10, cc % 10);
  }
  if ((precision == GemmPrecision::bf16 || precision == GemmPrecision::tf32) && cc < 80) {
    return fmt::format("{} tensor cores need compute capability 8.0 or newer; {} is {}.{}",
                       gemm_types(precision).label, gpu.name, cc / 10, cc % 10);
  }
  return std::nullopt;
}

PeakSamples measure_gemm_rate(GemmPrecision precision, int n, const RepetitionPlan& plan) {
  const GemmTypes types = gemm_types(precision);
  const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const bool fp8 = precision == GemmPrecision::fp8_e4m3;
  CudaStream stream;
  const std::size_t output_bytes = elements * dtype_size(types.output);
  GemmOperands operands{n,
                        types,
                        DeviceMemory(elements * dtype_size(types.input)),
                        DeviceMemory(elements * dtype_size(types.input)),
                        DeviceMemory(output_bytes),
                        DeviceMemory(output_bytes),
                        fp8};
  detail::fill_uniform_device(types.input, operands.a.get(), elements,
                              detail::fill_key(1, kNameA, sizeof(kNameA) - 1), -1.0, 1.0,
                              stream.get());
  detail::fill_uniform_device(types.input, operands.b.get(), elements,
                              detail::fill_key(1, kNameB, sizeof(kNameB) - 1), -1.0, 1.0,
                              stream.get());
  AISP_CUDA_CHECK(cudaMemsetAsync(operands.c.get(), 0, operands.c.bytes(), stream.get()));

  // The fastest algorithm over both layouts (TN only for FP8, which requires it).
  std::string failures;
  std::optional<LtGemm> best;
  int best_candidate = -1;
  double best_ms = 0;
  std::string layouts;
  for (const bool a_transposed : fp8 ? std::vector<bool>{true} : std::vector<bool>{false, true}) {
    operands.a_transposed = a_transposed;
    LtGemm gemm(precision, operands);
    const auto [candidate, ms] = gemm.fastest_candidate(stream.get(), &failures);
    if (candidate < 0) continue;
    layouts += fmt::format("{}{} {:.3f} ms (#{} of {})", layouts.empty() ? "" : ", ",
                           gemm.layout_name(), ms, candidate, gemm.found());
    if (!best || ms < best_ms) {
      best.emplace(std::move(gemm));
      best_candidate = candidate;
      best_ms = ms;
    }
  }
  if (!best)
    throw std::runtime_error(fmt::format("cuBLASLt: no candidate algorithm for the {} {}³ GEMM "
                                         "ran ({})",
                                         types.label, n, failures));
  operands.a_transposed = best->a_transposed();

  // Large GEMMs hit the board's power limit within a few hundred milliseconds (on the H200 the
  // SM clock falls from 1980 to ~1500 MHz at ~690 W, clock-event reason sw_power_cap), so the
  // rate depends on how long the GPU has been busy. The ceiling is the burst rate: after an idle
  // pause, a warm-up call and the repetitions (~30 ms). The sustained rate, after the plan's
  // warm-up stretched to seconds, is reported beside it.
  const double pause_s = plan.repetitions >= 10 ? 2.0 : 0.1;
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::this_thread::sleep_for(std::chrono::duration<double>(pause_s));
  AISP_CUDA_CHECK(cudaMemsetAsync(operands.d.get(), 0xFF, operands.d.bytes(), stream.get()));
  const auto call = [&] { AISP_CUBLAS_CHECK(best->run(best_candidate, stream.get())); };
  const std::vector<double> burst_ms =
      time_stream_repetitions(stream.get(), RepetitionPlan{plan.repetitions, 0.0}, call);
  spot_check(operands, stream.get());
  const double sustained_ms = median(time_stream_repetitions(
      stream.get(), RepetitionPlan{plan.repetitions, plan.warmup_s * 7.5}, call));
  const double flops =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const double sustained_tflops = flops / 1e12 / (sustained_ms * 1e-3);

  PeakSamples samples;
  samples.values = rates_per_second(flops / 1e12, milliseconds_to_seconds(burst_ms));
  samples.tool = fmt::format(
      "cuBLASLt {} cublasLtMatmul ({} in, {} out, {}, {} MiB workspace; fastest of the "
      "heuristic's candidates in a 5-call trial: {}; kept {})",
      library_version(cublasLtGetVersion()), dtype_name(types.input), dtype_name(types.output),
      compute_name(precision), kLtWorkspaceBytes >> 20, layouts, best->layout_name());
  samples.method = fmt::format(
      "{}³ {} GEMM, random inputs in [-1, 1], fp32 accumulate, beta 0, 2·n³ FLOPs, events around "
      "each call; burst: after a {:g} s idle pause, 1 warm-up call and {} timed calls; sustained "
      "after {:g} s of calls: {:.1f} TFLOP/s (power limit); 4 outputs checked against float64",
      n, types.label, pause_s, plan.repetitions, plan.warmup_s * 7.5, sustained_tflops);
  return samples;
}

}  // namespace aisp::peak
