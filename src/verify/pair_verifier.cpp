#include "verify/pair_verifier.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "aisp/check.hpp"
#include "verify/output_comparison.hpp"

namespace aisp {
namespace {

struct VariantRun {
  Signature signature;
  Workload workload;
  std::optional<Tolerance> tolerance;
  std::vector<Tensor> outputs;  // metadata only; the memory is gone after the run
  std::vector<std::vector<unsigned char>> bytes;
  std::vector<std::string> foreign_outputs;  // outputs not allocated through the context
};

VariantRun run_once(const BenchmarkFactory& factory, const ContextOptions& options) {
  VariantRun result;
  auto context = make_context(options);
  auto variant = factory();
  variant->setup(*context);
  // After setup: a signature may record what setup found (e.g. whether a file system lets the
  // page cache be dropped).
  result.signature = variant->signature();
  result.workload = variant->workload();
  result.tolerance = variant->tolerance();
  const bool gpu = options.device >= 0;
  if (gpu) AISP_CUDA_CHECK(cudaDeviceSynchronize());
  result.outputs = variant->outputs();
  const auto& owned = context->tensors();
  for (const auto& out : result.outputs) {
    const bool harness_owned = std::any_of(owned.begin(), owned.end(), [&](const Tensor& t) {
      return t.data() == out.data() && t.bytes() == out.bytes();
    });
    if (!harness_owned) result.foreign_outputs.push_back(out.name());
    else poison_tensor(out, options.stream);
  }
  variant->run(*context);
  if (gpu) {
    AISP_CUDA_CHECK(cudaGetLastError());
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
  }
  for (const auto& out : result.outputs) result.bytes.push_back(read_tensor_bytes(out, options.stream));
  variant->teardown(*context);
  return result;
}

bool looser_than_default(const Tolerance& t, DType dtype) {
  const Tolerance d = Tolerance::for_dtype(dtype);
  return t.rtol > d.rtol || t.atol > d.atol;
}

void add(Verification& v, std::string check, bool passed, std::string detail) {
  v.checks.push_back({std::move(check), passed, std::move(detail)});
}

}  // namespace

Verification verify_pair(const BenchmarkFactory& baseline_factory,
                         const BenchmarkFactory& optimized_factory, const ContextOptions& options,
                         Signature* baseline_signature) {
  Verification v;
  const VariantRun baseline = run_once(baseline_factory, options);
  const VariantRun optimized = run_once(optimized_factory, options);
  if (baseline_signature != nullptr) *baseline_signature = baseline.signature;

  add(v, "signatures_equal", baseline.signature == optimized.signature,
      baseline.signature == optimized.signature
          ? baseline.signature.to_string()
          : fmt::format("baseline [{}] vs optimized [{}]: the variants must solve the same problem",
                        baseline.signature.to_string(), optimized.signature.to_string()));
  const bool workloads_equal = baseline.workload.bytes == optimized.workload.bytes &&
                               baseline.workload.flops == optimized.workload.flops &&
                               baseline.workload.launches == optimized.workload.launches;
  add(v, "workloads_equal", workloads_equal,
      fmt::format("bytes {:g} vs {:g}, flops {:g} vs {:g}", baseline.workload.bytes,
                  optimized.workload.bytes, baseline.workload.flops, optimized.workload.flops));

  bool shapes_match = !baseline.outputs.empty() && baseline.outputs.size() == optimized.outputs.size();
  for (std::size_t i = 0; shapes_match && i < baseline.outputs.size(); ++i)
    shapes_match = baseline.outputs[i].name() == optimized.outputs[i].name() &&
                   baseline.outputs[i].dtype() == optimized.outputs[i].dtype() &&
                   baseline.outputs[i].count() == optimized.outputs[i].count();
  add(v, "outputs_declared", shapes_match,
      shapes_match ? fmt::format("{} output(s)", baseline.outputs.size())
                   : "outputs() must name the same non-empty list of tensors (name, dtype, count) "
                     "in both variants");
  const bool owned = baseline.foreign_outputs.empty() && optimized.foreign_outputs.empty();
  add(v, "outputs_harness_owned", owned,
      owned ? "every output allocated through ctx.alloc"
            : fmt::format("not allocated through ctx.alloc: {}",
                          fmt::join(baseline.foreign_outputs.empty() ? optimized.foreign_outputs
                                                                     : baseline.foreign_outputs,
                                    ", ")));
  if (!shapes_match || !owned) {
    v.passed = false;
    return v;
  }

  bool all_passed = true;
  for (std::size_t i = 0; i < baseline.outputs.size(); ++i) {
    const Tensor& meta = baseline.outputs[i];
    for (const auto* run : {&baseline, &optimized}) {
      const char* who = run == &baseline ? "baseline" : "optimized";
      const std::size_t unwritten = count_unwritten(meta.dtype(), run->bytes[i]);
      add(v, "outputs_written", unwritten == 0,
          fmt::format("{} {}: {} of {} elements unwritten after the run (poisoned before it)", who,
                      meta.name(), unwritten, meta.count()));
      const std::size_t non_finite = count_non_finite(meta.dtype(), run->bytes[i]);
      add(v, "outputs_finite", non_finite == 0,
          fmt::format("{} {}: {} NaN/Inf elements", who, meta.name(), non_finite));
    }
    const Tolerance tolerance = optimized.tolerance.value_or(
        baseline.tolerance.value_or(Tolerance::for_dtype(meta.dtype())));
    const bool justified = !looser_than_default(tolerance, meta.dtype()) ||
                           !tolerance.justification.empty();
    add(v, "tolerance_justified", justified,
        justified ? (tolerance.justification.empty() ? "dtype default" : tolerance.justification)
                  : fmt::format("rtol={:g} atol={:g} is looser than the {} default; give a "
                                "justification in tolerance()",
                                tolerance.rtol, tolerance.atol, dtype_name(meta.dtype())));
    const ToleranceReport report =
        compare_within_tolerance(meta.dtype(), baseline.bytes[i], optimized.bytes[i], tolerance);
    add(v, "within_tolerance", report.passed, describe(report, tolerance, meta.name(), meta.count()));
  }
  for (const auto& c : v.checks) all_passed = all_passed && c.passed;
  v.passed = all_passed;
  return v;
}

std::string first_failure(const Verification& verification) {
  for (const auto& c : verification.checks)
    if (!c.passed) return c.check + ": " + c.detail;
  return {};
}

}  // namespace aisp
