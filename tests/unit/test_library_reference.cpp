// The library reference: which variant of a pair declares it (core/pair_catalog), the role each
// target has, and the fraction's bootstrap on synthetic samples (worker/library_reference).
// Nothing here times anything.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "aisp/aisp.hpp"
#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "core/variant_registry.hpp"
#include "measure/bootstrap.hpp"
#include "verify/contract_audit.hpp"
#include "worker/library_reference.hpp"

namespace aisp {
namespace {

// A variant that answers library_reference() and nothing else that matters here.
struct DeclaringVariant : Benchmark {
  explicit DeclaringVariant(std::string library) : library_(std::move(library)) {}
  Signature signature() const override { return Signature().set("n", 1); }
  void setup(Context&) override {}
  void run(Context&) override {}
  std::vector<Tensor> outputs() const override { return {}; }
  Workload workload() const override { return {}; }
  std::string library_reference() const override { return library_; }

 private:
  std::string library_;
};

VariantInfo variant(const std::string& path, const std::string& library) {
  VariantInfo info = parse_variant_path(path);
  info.factory = [library] { return std::make_unique<DeclaringVariant>(library); };
  return info;
}

VariantInfo throwing_variant(const std::string& path) {
  VariantInfo info = parse_variant_path(path);
  info.factory = []() -> std::unique_ptr<Benchmark> { throw std::runtime_error("cannot build"); };
  return info;
}

const PairInfo& target(const std::vector<PairInfo>& catalog, const std::string& name) {
  for (const PairInfo& pair : catalog)
    if (pair.target == name)
      return pair;
  throw std::invalid_argument("no target " + name);
}

TEST(DeclaredLibraryReferences, FindsTheOneVariantOfThePairThatDeclares) {
  const std::vector<VariantInfo> variants{
      variant("chapters/ch10_t/baseline_gemm.cu", ""),
      variant("chapters/ch10_t/optimized_gemm_wgmma.cu", ""),
      variant("chapters/ch10_t/optimized_gemm_cublaslt.cu", "cuBLASLt"),
      variant("chapters/ch10_t/baseline_gemm_4k.cu", ""),  // another pair: not a sibling
      variant("chapters/ch10_t/optimized_gemm_4k_cublaslt.cu", "cuBLASLt"),
  };
  const std::vector<PairInfo> catalog = build_pair_catalog(variants, nullptr);
  std::vector<std::string> problems;
  const auto declared =
      declared_library_references(catalog, target(catalog, "ch10:gemm_wgmma"), &problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(declared.size(), 1u);
  EXPECT_EQ(declared[0].variant->stem, "optimized_gemm_cublaslt");
  EXPECT_EQ(declared[0].library, "cuBLASLt");
  EXPECT_FALSE(declared[0].is_baseline());
}

TEST(DeclaredLibraryReferences, ABaselineMayDeclareAndTwoDeclarationsAreBothReported) {
  const std::vector<VariantInfo> variants{
      variant("chapters/ch19_t/baseline_gemv.cu", "cuBLAS"),
      variant("chapters/ch19_t/optimized_gemv_fused.cu", ""),
      variant("chapters/ch19_t/optimized_gemv_lt.cu", "cuBLASLt"),
      throwing_variant("chapters/ch19_t/optimized_gemv_broken.cu"),
  };
  const std::vector<PairInfo> catalog = build_pair_catalog(variants, nullptr);
  std::vector<std::string> problems;
  const auto declared =
      declared_library_references(catalog, target(catalog, "ch19:gemv_fused"), &problems);
  ASSERT_EQ(declared.size(), 2u);
  EXPECT_TRUE(declared[0].is_baseline());
  EXPECT_EQ(declared[1].library, "cuBLASLt");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("optimized_gemv_broken: constructing it to ask library_reference() "
                             "threw: cannot build"),
            std::string::npos)
      << problems[0];
}

AuditCheck audit_check(const PairAudit& audit, const std::string& name) {
  for (const AuditCheck& c : audit.checks)
    if (c.check == name)
      return c;
  throw std::invalid_argument("no check " + name);
}

TEST(LibraryReferenceAudit, FailsTwoDeclarationsAndNamesEachTargetsRole) {
  const std::vector<VariantInfo> variants{
      variant("chapters/ch19_t/baseline_gemv.cu", "cuBLAS"),
      variant("chapters/ch19_t/optimized_gemv_fused.cu", ""),
      variant("chapters/ch19_t/optimized_gemv_lt.cu", "cuBLASLt"),
      variant("chapters/ch10_t/baseline_gemm.cu", ""),
      variant("chapters/ch10_t/optimized_gemm_wgmma.cu", ""),
      variant("chapters/ch10_t/optimized_gemm_cublaslt.cu", "cuBLASLt"),
  };
  const std::vector<PairInfo> catalog = build_pair_catalog(variants, nullptr);
  const AuditCheck twice =
      audit_check(audit_pair(target(catalog, "ch19:gemv_fused"), catalog), "library_reference");
  EXPECT_EQ(twice.outcome, AuditOutcome::fail);
  EXPECT_NE(twice.detail.find("2 variants of pair gemv declare library_reference(): "
                              "baseline_gemv (cuBLAS), optimized_gemv_lt (cuBLASLt)"),
            std::string::npos)
      << twice.detail;

  const AuditCheck sibling =
      audit_check(audit_pair(target(catalog, "ch10:gemm_wgmma"), catalog), "library_reference");
  EXPECT_EQ(sibling.outcome, AuditOutcome::pass);
  EXPECT_EQ(sibling.detail, "cuBLASLt: reports its fraction of optimized_gemm_cublaslt, timed "
                            "beside it in the same worker");
  const AuditCheck itself =
      audit_check(audit_pair(target(catalog, "ch10:gemm_cublaslt"), catalog), "library_reference");
  EXPECT_EQ(itself.outcome, AuditOutcome::pass);
  EXPECT_NE(itself.detail.find("this target is the pair's reference (its speedup as usual); the "
                               "pair's 1 other target"),
            std::string::npos)
      << itself.detail;
}

VariantMeasurement host_samples(const std::string& name, std::vector<double> ms) {
  VariantMeasurement m;
  m.variant = name;
  m.method = TimingMethod::host_clock;
  m.host_ms = std::move(ms);
  return m;
}

// 41 samples around `median_ms`, spread by ±3%.
std::vector<double> around(double median_ms) {
  std::vector<double> ms;
  for (int i = -20; i <= 20; ++i)
    ms.push_back(median_ms * (1.0 + 0.0015 * i));
  return ms;
}

TEST(LibraryFraction, IsTheReferenceMedianOverTheOptimizedMedianWithAnInterval) {
  MeasurementSettings settings;
  PairResult result;
  result.optimized = host_samples("optimized_gemm_wgmma", around(2.0));
  LibraryComparison comparison;
  comparison.library = "cuBLASLt";
  comparison.reference_variant = "optimized_gemm_cublaslt";
  comparison.role = LibraryRole::timed;
  complete_library_comparison(comparison, result,
                              host_samples("optimized_gemm_cublaslt", around(1.0)), settings);
  ASSERT_TRUE(comparison.fraction.has_value());
  EXPECT_DOUBLE_EQ(comparison.fraction->value, 0.5);
  EXPECT_LT(comparison.fraction->ci_low, 0.5);
  EXPECT_GT(comparison.fraction->ci_high, 0.5);
  EXPECT_GT(comparison.fraction->ci_low, 0.45);
  EXPECT_LT(comparison.fraction->ci_high, 0.55);
  EXPECT_EQ(comparison.fraction->verdict, "slower");
  EXPECT_EQ(comparison.fraction->confidence, settings.confidence);
  ASSERT_TRUE(comparison.reference.has_value());
  EXPECT_EQ(comparison.reference->variant, "optimized_gemm_cublaslt");
  EXPECT_TRUE(comparison.reason.empty());

  // The same samples always give the same interval (the bootstrap is seeded from the settings).
  LibraryComparison again = comparison;
  again.fraction.reset();
  complete_library_comparison(again, result, host_samples("r", around(1.0)), settings);
  EXPECT_EQ(again.fraction->ci_low, comparison.fraction->ci_low);
  EXPECT_EQ(again.fraction->ci_high, comparison.fraction->ci_high);
}

TEST(LibraryFraction, AboveOneWhenTheVariantBeatsTheLibrary) {
  MeasurementSettings settings;
  PairResult result;
  result.optimized = host_samples("o", around(0.8));
  LibraryComparison comparison;
  comparison.role = LibraryRole::timed;
  complete_library_comparison(comparison, result, host_samples("r", around(1.0)), settings);
  ASSERT_TRUE(comparison.fraction.has_value());
  EXPECT_DOUBLE_EQ(comparison.fraction->value, 1.25);
  EXPECT_EQ(comparison.fraction->verdict, "faster");
}

TEST(LibraryFraction, EventTimesForGpuVariants) {
  MeasurementSettings settings;
  PairResult result;
  VariantMeasurement optimized;
  optimized.method = TimingMethod::cuda_events;
  optimized.event_ms = around(4.0);
  optimized.host_ms = around(40.0);  // not what a GPU variant is judged by
  result.optimized = optimized;
  VariantMeasurement reference = optimized;
  reference.event_ms = around(3.0);
  LibraryComparison comparison;
  comparison.role = LibraryRole::timed;
  complete_library_comparison(comparison, result, reference, settings);
  ASSERT_TRUE(comparison.fraction.has_value());
  EXPECT_DOUBLE_EQ(comparison.fraction->value, 0.75);
}

TEST(LibraryFraction, TheBaselineAsReferenceGivesTheSpeedupAndTheReferenceItselfNone) {
  MeasurementSettings settings;
  PairResult result;
  result.optimized = host_samples("o", around(1.0));
  result.speedup = Speedup{2.5, 2.4, 2.6, 0.95, 2000, "faster"};
  LibraryComparison baseline;
  baseline.role = LibraryRole::baseline;
  complete_library_comparison(baseline, result, std::nullopt, settings);
  ASSERT_TRUE(baseline.fraction.has_value());
  EXPECT_EQ(baseline.fraction->value, 2.5);
  EXPECT_EQ(baseline.fraction->ci_low, 2.4);
  EXPECT_FALSE(baseline.reference.has_value());

  LibraryComparison self;
  self.role = LibraryRole::reference;
  complete_library_comparison(self, result, host_samples("r", around(1.0)), settings);
  EXPECT_FALSE(self.fraction.has_value());
}

TEST(LibraryFraction, TooFewReferenceSamplesGiveAReasonNotAFraction) {
  MeasurementSettings settings;
  PairResult result;
  result.optimized = host_samples("o", around(1.0));
  LibraryComparison comparison;
  comparison.role = LibraryRole::timed;
  complete_library_comparison(comparison, result, host_samples("r", {1.0}), settings);
  EXPECT_FALSE(comparison.fraction.has_value());
  EXPECT_NE(comparison.reason.find("the reference took 1 sample(s) beside the optimized variant"),
            std::string::npos)
      << comparison.reason;

  LibraryComparison untimed;  // the reference took no part: nothing to compute
  untimed.role = LibraryRole::timed;
  untimed.reason = "the cuBLASLt reference (x) is unavailable here: no cuBLASLt";
  complete_library_comparison(untimed, result, std::nullopt, settings);
  EXPECT_FALSE(untimed.fraction.has_value());
  EXPECT_EQ(untimed.reason, "the cuBLASLt reference (x) is unavailable here: no cuBLASLt");
}

}  // namespace
}  // namespace aisp
