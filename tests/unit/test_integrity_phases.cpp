// The pure parts of the Integrity issue's enforcement: the --verify-phase setting, the results
// schema that records it (version 2, still reading version 1), quarantine.json, what the
// printers show for quarantined and detect-phase pairs, and `bench audit`'s contract checks on
// variants made up here.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "policy/quarantine.hpp"
#include "report/audit_report.hpp"
#include "report/csv_export.hpp"
#include "report/markdown_summary.hpp"
#include "report/quarantine_report.hpp"
#include "report/report_format.hpp"
#include "report/text_summary.hpp"
#include "results/results_json.hpp"
#include "system/build_info.hpp"
#include "temp_files.hpp"
#include "verify/contract_audit.hpp"

namespace aisp {
namespace {

using nlohmann::json;
using test::ScopedTempDir;
using test::write_file;

const RunSettingDescriptor& verify_phase_setting() {
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    if (std::string(descriptor.flag) == "--verify-phase") {
      return descriptor;
    }
  }
  throw std::logic_error("no --verify-phase setting");
}

// ---- the setting ---------------------------------------------------------------------------

TEST(VerifyPhaseSetting, DefaultsToGateAndAppliesToVerify) {
  EXPECT_EQ(MeasurementSettings{}.verify_phase, VerifyPhase::gate);
  EXPECT_TRUE(verify_phase_setting().applies_to_verify);
  EXPECT_EQ(run_setting_value_text(MeasurementSettings{}, verify_phase_setting()), "gate");
}

TEST(VerifyPhaseSetting, TakesThePhaseNamesAndRefusesOthersListingThem) {
  MeasurementSettings settings;
  EXPECT_EQ(apply_run_setting(settings, verify_phase_setting(), "detect"), std::nullopt);
  EXPECT_EQ(settings.verify_phase, VerifyPhase::detect);
  EXPECT_EQ(apply_run_setting(settings, verify_phase_setting(), "quarantine"), std::nullopt);
  EXPECT_EQ(settings.verify_phase, VerifyPhase::quarantine);
  for (const char* bad : {"strict", "Gate", "", "1"}) {
    EXPECT_EQ(apply_run_setting(settings, verify_phase_setting(), bad).value_or(""),
              std::string("--verify-phase ") + bad + ": must be one of detect, quarantine, gate");
  }
  EXPECT_EQ(settings.verify_phase, VerifyPhase::quarantine);  // untouched by the bad values
}

TEST(VerifyPhaseSetting, TravelsAsItsNameInTheSettingsJson) {
  MeasurementSettings settings;
  settings.verify_phase = VerifyPhase::detect;
  const json value = measurement_settings_to_json(settings);
  EXPECT_EQ(value.at("verify_phase"), "detect");
  EXPECT_EQ(measurement_settings_from_json(value).verify_phase, VerifyPhase::detect);
  EXPECT_THROW(measurement_settings_from_json(json{{"verify_phase", "sometimes"}}),
               std::invalid_argument);
  EXPECT_THROW(measurement_settings_from_json(json{{"verify_phase", 2}}), std::invalid_argument);
  EXPECT_NE(run_settings_markdown_table().find("| `--verify-phase` | `verify_phase` |  | gate |"),
            std::string::npos);
}

// ---- results ------------------------------------------------------------------------------

PairResult cheat_result(PairStatus status) {
  PairResult pair;
  pair.target = "ch92:cached_result";
  pair.chapter = "ch92";
  pair.pair = "cached_result";
  pair.baseline_variant = "baseline_cached_result";
  pair.optimized_variant = "optimized_cached_result";
  pair.status = status;
  pair.reason = status == PairStatus::passed ? "" : "verification failed: fresh_inputs_recomputed";
  pair.verification.passed = false;
  pair.verification.checks = {{"signatures_equal", true, "n=1048576 dtype=f32"},
                              {"fresh_inputs_recomputed", false, "y: 1048576 of 1048576 differ"},
                              {"within_tolerance", true, "max |diff| 0"}};
  VariantMeasurement m;
  m.variant = "optimized_cached_result";
  m.method = TimingMethod::host_clock;
  m.stats.count = 10;
  m.stats.median = 0.5;
  pair.baseline = m;
  pair.optimized = m;
  Speedup speedup;
  speedup.value = 4.0;
  speedup.ci_low = 3.9;
  speedup.ci_high = 4.1;
  speedup.verdict = "faster";
  pair.speedup = speedup;
  pair.log_file = "logs/ch92_cached_result.log";
  return pair;
}

TEST(ResultsSchema, WritesTheCurrentVersionWithThePhaseAndReadsItBack) {
  RunResults results;
  results.run_id = "r1";
  results.verify_phase = VerifyPhase::quarantine;
  results.pairs.push_back(cheat_result(PairStatus::quarantined));
  const json value = to_json(results);
  EXPECT_EQ(value.at("schema_version"), kResultsSchemaVersion);  // the phase arrived in 2
  EXPECT_EQ(value.at("verify_phase"), "quarantine");
  EXPECT_EQ(value.at("pairs")[0].at("status"), "quarantined");
  const RunResults read = run_results_from_json(json::parse(value.dump()));
  EXPECT_EQ(read.verify_phase, VerifyPhase::quarantine);
  EXPECT_EQ(read.pairs.at(0).status, PairStatus::quarantined);
}

TEST(ResultsSchema, VersionOneReadsAsGateAndVersionTwoNeedsThePhase) {
  json value = to_json(RunResults{});
  value["schema_version"] = 1;
  value.erase("verify_phase");
  EXPECT_EQ(run_results_from_json(value).verify_phase, VerifyPhase::gate);
  value["schema_version"] = 2;
  EXPECT_THROW(run_results_from_json(value), ResultsFormatError);
  value["verify_phase"] = "lenient";
  try {
    run_results_from_json(value);
    FAIL() << "expected ResultsFormatError";
  } catch (const ResultsFormatError& error) {
    EXPECT_EQ(std::string(error.what()),
              "verify_phase: expected one of detect, quarantine, gate, got a string \"lenient\"");
  }
}

TEST(ResultsSchema, TheVersionOneFixtureStillLoads) {
  const std::filesystem::path fixture =
      std::filesystem::path(build_info().source_dir) / "tests/data/run_h200_ch01/results.json";
  const RunResults results = load_run_results(fixture);
  EXPECT_EQ(results.schema_version, 1);
  EXPECT_EQ(results.verify_phase, VerifyPhase::gate);
  EXPECT_EQ(results.pairs.size(), 3U);
}

// ---- what the printers show ----------------------------------------------------------------

TEST(PhasePrinting, QuarantinedPairsShowNoSpeedupAnywhere) {
  RunResults results;
  results.run_id = "r1";
  results.complete = true;
  results.verify_phase = VerifyPhase::quarantine;
  results.pairs.push_back(cheat_result(PairStatus::quarantined));
  const PairResult& pair = results.pairs[0];
  EXPECT_FALSE(report_format::shows_speedup(pair));
  EXPECT_EQ(format_pair_line(pair).rfind("QUAR ch92:cached_result  quarantined: ", 0), 0U)
      << format_pair_line(pair);
  EXPECT_EQ(format_pair_line(pair).find("4.00"), std::string::npos);
  const std::string csv = render_csv(results);
  EXPECT_EQ(csv.find(",4,"), std::string::npos) << csv;
  const std::string markdown = render_markdown_summary(results, json::object());
  EXPECT_EQ(markdown.find("4.00×"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("> **Verification phase: quarantine.**"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("1 pair: 0 passed, 0 failed, 0 skipped, 1 quarantined"),
            std::string::npos)
      << markdown;
  EXPECT_NE(render_text_summary(results).find("Verification phase: quarantine."),
            std::string::npos);
}

TEST(PhasePrinting, DetectWarnsWithTheFailedCheckAndKeepsTheSpeedupOutOfReports) {
  RunResults results;
  results.run_id = "r1";
  results.complete = true;
  results.verify_phase = VerifyPhase::detect;
  results.pairs.push_back(cheat_result(PairStatus::passed));
  const PairResult& pair = results.pairs[0];
  EXPECT_TRUE(report_format::passed_with_failed_checks(pair));
  EXPECT_FALSE(report_format::shows_speedup(pair));
  const std::string line = format_pair_line(pair);
  EXPECT_EQ(line.rfind("PASS ch92:cached_result", 0), 0U) << line;
  EXPECT_NE(line.find("\n  warning: 1 check failed, not enforced (--verify-phase detect): "
                      "fresh_inputs_recomputed: y: 1048576 of 1048576 differ; unverified speedup "
                      "4.00× [3.90, 4.10], shown in no report"),
            std::string::npos)
      << line;
  const std::string markdown = render_markdown_summary(results, json::object());
  EXPECT_NE(markdown.find("Verification phase: detect."), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("- **ch92:cached_result** passed with failed checks"), std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find("4.00×"), std::string::npos) << markdown;
  EXPECT_NE(render_text_summary(results).find("not enforced (detect)"), std::string::npos);
}

TEST(PhasePrinting, GateRunsSayNothingNew) {
  EXPECT_EQ(report_format::verify_phase_note(VerifyPhase::gate), "");
  PairResult pair = cheat_result(PairStatus::failed);
  EXPECT_FALSE(report_format::passed_with_failed_checks(pair));
  EXPECT_EQ(format_pair_line(pair).find('\n'), std::string::npos);
}

TEST(PhasePrinting, CheckLinesListEveryCheckWithItsOutcome) {
  const std::string lines = format_check_lines(cheat_result(PairStatus::failed).verification);
  EXPECT_EQ(lines, "    ok   signatures_equal: n=1048576 dtype=f32\n"
                   "    FAIL fresh_inputs_recomputed: y: 1048576 of 1048576 differ\n"
                   "    ok   within_tolerance: max |diff| 0\n");
}

// ---- quarantine.json -----------------------------------------------------------------------

TEST(Quarantine, OnlyEnforcedFailedChecksBelong) {
  const PairResult failed = cheat_result(PairStatus::failed);
  EXPECT_TRUE(belongs_in_quarantine(failed, VerifyPhase::gate));
  EXPECT_TRUE(
      belongs_in_quarantine(cheat_result(PairStatus::quarantined), VerifyPhase::quarantine));
  EXPECT_FALSE(belongs_in_quarantine(failed, VerifyPhase::detect));
  EXPECT_FALSE(belongs_in_quarantine(cheat_result(PairStatus::passed), VerifyPhase::gate));
  PairResult crashed = failed;
  crashed.status = PairStatus::crashed;
  EXPECT_FALSE(belongs_in_quarantine(crashed, VerifyPhase::gate));
  PairResult threw = failed;  // failed without a failed check: setup threw
  threw.verification = {};
  EXPECT_FALSE(belongs_in_quarantine(threw, VerifyPhase::gate));
}

QuarantineFile sample_quarantine() {
  QuarantineFile file;
  file.run_id = "20261121-101500-ab12";
  file.verify_phase = VerifyPhase::quarantine;
  file.entries.push_back(make_quarantine_entry(cheat_result(PairStatus::quarantined),
                                               VerifyPhase::quarantine, file.run_id,
                                               "1a2b3c4-dirty", "2026-11-21T10:16:00Z"));
  return file;
}

TEST(Quarantine, EntryKeepsOnlyTheFailedChecksAndTheProvenance) {
  const QuarantineFile file = sample_quarantine();
  const QuarantineEntry& entry = file.entries.at(0);
  EXPECT_EQ(entry.target, "ch92:cached_result");
  EXPECT_EQ(entry.status, PairStatus::quarantined);
  ASSERT_EQ(entry.failed_checks.size(), 1U);
  EXPECT_EQ(entry.failed_checks[0].check, "fresh_inputs_recomputed");
  EXPECT_EQ(entry.git_commit, "1a2b3c4-dirty");
  EXPECT_EQ(entry.log_file, "logs/ch92_cached_result.log");
}

TEST(Quarantine, RoundTripsThroughAFile) {
  const ScopedTempDir dir("quarantine_round_trip");
  const QuarantineFile original = sample_quarantine();
  write_json_atomically(dir.path() / "quarantine.json", quarantine_to_json(original));
  const QuarantineFile read = load_quarantine_file(dir.path() / "quarantine.json");
  EXPECT_EQ(quarantine_to_json(read), quarantine_to_json(original));
  EXPECT_EQ(read.entries.at(0).failed_checks.at(0).detail, "y: 1048576 of 1048576 differ");
}

TEST(Quarantine, ACorruptFileNamesTheFileAndTheField) {
  const ScopedTempDir dir("quarantine_corrupt");
  const std::filesystem::path file = dir.path() / "quarantine.json";
  json value = quarantine_to_json(sample_quarantine());
  value["entries"][0]["failed_checks"][0].erase("detail");
  write_file(file, value.dump());
  try {
    load_quarantine_file(file);
    FAIL() << "expected ResultsFormatError";
  } catch (const ResultsFormatError& error) {
    EXPECT_EQ(std::string(error.what()),
              file.string() + ": entries[0].failed_checks[0].detail: missing; expected a string");
  }
  write_file(file, "{\"schema_version\": 1, ");
  EXPECT_THROW(load_quarantine_file(file), ResultsFormatError);
  write_file(file, R"({"schema_version": 2, "run_id": "", "verify_phase": "gate", "entries": []})");
  EXPECT_THROW(load_quarantine_file(file), ResultsFormatError);
}

TEST(Quarantine, TextSaysWhyOrThatThereIsNothing) {
  const std::string text = render_quarantine_text(sample_quarantine());
  EXPECT_EQ(text, "Run 20261121-101500-ab12: 1 quarantined pair (verification phase: quarantine).\n"
                  "\n"
                  "ch92:cached_result  quarantined under --verify-phase quarantine, "
                  "2026-11-21T10:16:00Z, commit 1a2b3c4-dirty\n"
                  "  FAIL fresh_inputs_recomputed: y: 1048576 of 1048576 differ\n"
                  "  log: logs/ch92_cached_result.log\n");
  QuarantineFile empty;
  empty.run_id = "r2";
  EXPECT_EQ(render_quarantine_text(empty),
            "Run r2: no quarantined pairs (verification phase: gate).\n");
}

// ---- bench audit ---------------------------------------------------------------------------

// A CPU problem whose every hook the tests can bend.
struct AuditProblem : Benchmark {
  Signature signature_ = Signature().set("n", 16).set("dtype", DType::f32);
  Requirements requirements_ = Requirements::cpu();
  Workload workload_ = [] {
    Workload w;
    w.bytes = 128;
    w.flops = 32;
    return w;
  }();
  std::optional<Tolerance> tolerance_;

  Signature signature() const override { return signature_; }
  Requirements requirements() const override { return requirements_; }
  void setup(Context&) override { throw std::logic_error("the audit must not call setup()"); }
  void run(Context&) override { throw std::logic_error("the audit must not call run()"); }
  std::vector<Tensor> outputs() const override {
    throw std::logic_error("the audit must not ask for outputs()");
  }
  std::optional<Tolerance> tolerance() const override { return tolerance_; }
  Workload workload() const override { return workload_; }
};

// A pair of AuditProblem variants in <root>/ch42_audit_unit/, both made by `make`.
class AuditFixture : public ::testing::Test {
 protected:
  AuditFixture() : dir_("contract_audit") {
    folder_ = dir_.path() / "ch42_audit_unit";
    write_file(folder_ / "README.md", "# ch42\n");
    baseline_ = variant("baseline_scale", VariantRole::baseline, "scale");
    optimized_ = variant("optimized_scale_fast", VariantRole::optimized, "scale_fast");
  }

  VariantInfo variant(const std::string& stem, VariantRole role, const std::string& name) {
    VariantInfo info;
    info.chapter = "ch42";
    info.folder = "ch42_audit_unit";
    info.stem = stem;
    info.role = role;
    info.name = name;
    info.source_path = (folder_ / (stem + ".cpp")).string();
    info.factory = [this] { return make(); };
    return info;
  }

  PairAudit audit() {
    PairInfo pair;
    pair.target = "ch42:scale_fast";
    pair.chapter = "ch42";
    pair.pair = "scale";
    pair.baseline = &baseline_;
    pair.optimized = &optimized_;
    return audit_pair(pair);
  }

  static AuditOutcome outcome(const PairAudit& audit, const std::string& check) {
    for (const AuditCheck& c : audit.checks) {
      if (c.check == check) {
        return c.outcome;
      }
    }
    throw std::logic_error("no check " + check);
  }
  static std::string detail(const PairAudit& audit, const std::string& check) {
    for (const AuditCheck& c : audit.checks) {
      if (c.check == check) {
        return c.detail;
      }
    }
    return {};
  }

  std::function<std::unique_ptr<Benchmark>()> make = [] {
    return std::unique_ptr<Benchmark>(std::make_unique<AuditProblem>());
  };
  ScopedTempDir dir_;
  std::filesystem::path folder_;
  VariantInfo baseline_, optimized_;
};

TEST_F(AuditFixture, ACompletePairPassesWithOutputsLeftToVerification) {
  const PairAudit result = audit();
  EXPECT_TRUE(result.complete()) << render_audit_text({result});
  EXPECT_EQ(outcome(result, "outputs_declared"), AuditOutcome::deferred);
  for (const char* check :
       {"variants_present", "constructible", "requirements_consistent", "workload_declared",
        "signature_declared", "tolerance_justified", "file_names", "chapter_readme"}) {
    EXPECT_EQ(outcome(result, check), AuditOutcome::pass) << check << ": " << detail(result, check);
  }
}

TEST_F(AuditFixture, NoWorkDeclaredFails) {
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->workload_ = Workload{};
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  const PairAudit result = audit();
  EXPECT_FALSE(result.complete());
  EXPECT_EQ(outcome(result, "workload_declared"), AuditOutcome::fail);
}

TEST_F(AuditFixture, ALaunchBoundPairMustCountItsLaunches) {
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->workload_.launch_ceiling = Ceiling::graph_node_launch;
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  EXPECT_EQ(outcome(audit(), "workload_declared"), AuditOutcome::fail);
}

TEST_F(AuditFixture, ALooseToleranceNeedsAJustification) {
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->tolerance_ = Tolerance{1e-2, 1e-3, ""};
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  EXPECT_EQ(outcome(audit(), "tolerance_justified"), AuditOutcome::fail);
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->tolerance_ = Tolerance{1e-2, 1e-3, "sums of 2^20 terms in a different order"};
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  EXPECT_EQ(outcome(audit(), "tolerance_justified"), AuditOutcome::pass);
  // Without a dtype in the signature the default is known only after setup.
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->tolerance_ = Tolerance{1e-2, 1e-3, ""};
    problem->signature_ = Signature().set("n", 16);
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  EXPECT_EQ(outcome(audit(), "tolerance_justified"), AuditOutcome::deferred);
}

TEST_F(AuditFixture, ContradictoryRequirementsFail) {
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->requirements_.features = {Feature::tma};
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  EXPECT_EQ(outcome(audit(), "requirements_consistent"), AuditOutcome::fail);
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->requirements_ = Requirements{};
    problem->requirements_.features = {Feature::wgmma};  // min_compute_capability stays 70
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  EXPECT_NE(detail(audit(), "requirements_consistent").find("declare at least 90"),
            std::string::npos);
}

TEST_F(AuditFixture, ASignatureSetInSetupIsLeftToVerification) {
  make = [] {
    auto problem = std::make_unique<AuditProblem>();
    problem->signature_ = Signature();
    return std::unique_ptr<Benchmark>(std::move(problem));
  };
  const PairAudit result = audit();
  EXPECT_EQ(outcome(result, "signature_declared"), AuditOutcome::deferred);
  EXPECT_TRUE(result.complete());
}

TEST_F(AuditFixture, AThrowingConstructorFailsWithoutCrashingTheAudit) {
  make = []() -> std::unique_ptr<Benchmark> { throw std::runtime_error("cudaMalloc: no device"); };
  const PairAudit result = audit();
  EXPECT_EQ(outcome(result, "constructible"), AuditOutcome::fail);
  EXPECT_NE(detail(result, "constructible").find("cudaMalloc: no device"), std::string::npos);
  EXPECT_EQ(outcome(result, "workload_declared"), AuditOutcome::fail);
}

TEST_F(AuditFixture, AMissingReadmeAndABadFolderNameFail) {
  std::filesystem::remove(folder_ / "README.md");
  EXPECT_EQ(outcome(audit(), "chapter_readme"), AuditOutcome::fail);
  baseline_.folder = optimized_.folder = "ch42";
  EXPECT_EQ(outcome(audit(), "file_names"), AuditOutcome::fail);
}

TEST(ContractAudit, RegistrationProblemsAreIncompleteRows) {
  const PairAudit row = audit_registration_problem(
      "ch07: optimized_x ('/src/ch07_a/optimized_x.cu') has no baseline; add baseline_<pair>.cu");
  EXPECT_EQ(row.target, "ch07:optimized_x");
  EXPECT_FALSE(row.complete());
  const auto value = audit_to_json({row});
  EXPECT_EQ(value.at("complete"), false);
  EXPECT_EQ(value.at("counts").at("incomplete"), 1);
  EXPECT_EQ(value.at("pairs")[0].at("checks")[0].at("outcome"), "fail");
}

}  // namespace
}  // namespace aisp
