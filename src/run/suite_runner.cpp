// The orchestrator: one worker process per pair, results on disk as they arrive, and an exit
// code that is 0 only when every selected pair passed or was skipped with a reason.
#include "run/suite_runner.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "policy/expectations.hpp"
#include "policy/quarantine.hpp"
#include "profile/pair_profiler.hpp"
#include "report/marks_format.hpp"
#include "report/precision_format.hpp"
#include "report/profile_format.hpp"
#include "report/text_summary.hpp"
#include "results/artifacts_layout.hpp"
#include "results/results_json.hpp"
#include "run/run_directory.hpp"
#include "system/system_info.hpp"
#include "worker/worker_process.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

std::atomic<bool> g_interrupted{false};  // set from the signal handler only

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

class InterruptGuard {
 public:
  InterruptGuard() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

std::string self_executable(const char* argv0) {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(argv0) : self.string();
}

std::string log_tail(const std::filesystem::path& log, std::size_t max_lines) {
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.erase(lines.begin());
  }
  std::string tail;
  for (const auto& l : lines) tail += (tail.empty() ? "" : " | ") + l;
  return tail;
}

PairResult result_without_report(const PairInfo& pair, const WorkerOutcome& outcome,
                                 const std::filesystem::path& log, double timeout_s) {
  PairResult r;
  r.target = pair.target;
  r.chapter = pair.chapter;
  r.pair = pair.pair;
  r.baseline_variant = pair.baseline->stem;
  r.optimized_variant = pair.optimized->stem;
  const std::string tail = log_tail(log, 3);
  const std::string context = tail.empty() ? "" : fmt::format("; log: {}", tail);
  if (outcome.interrupted) {
    r.status = PairStatus::interrupted;
    r.reason = fmt::format("interrupted during phase '{}'", outcome.last_phase);
  } else if (outcome.timed_out) {
    r.status = PairStatus::timed_out;
    r.reason = fmt::format("no result after {:g} s (phase '{}'); a hang, or a pair slower than the "
                           "limit: raise --timeout or shrink the problem{}",
                           timeout_s, outcome.last_phase, context);
  } else if (outcome.signal != 0) {
    r.status = PairStatus::crashed;
    r.reason = fmt::format("worker killed by signal {} ({}) in phase '{}'{}", outcome.signal,
                           strsignal(outcome.signal), outcome.last_phase, context);
  } else {
    r.status = PairStatus::crashed;
    r.reason = fmt::format("worker exited with code {} without a result in phase '{}'{}",
                           outcome.exit_code, outcome.last_phase, context);
  }
  return r;
}

// Progress on a terminal: one status line rewritten in place. In a pipe: nothing until a pair
// finishes, then one line.
class Progress {
 public:
  Progress(std::FILE* out, std::size_t total) : out_(out), total_(total), tty_(isatty(fileno(out))) {}
  void begin(std::size_t index, const std::string& target) {
    index_ = index;
    target_ = target;
    started_ = std::chrono::steady_clock::now();
    show("start");
  }
  void show(const std::string& phase) {
    if (!tty_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    fmt::print(out_, "\r\033[K[{}/{}] {}  {}  {:.1f} s", index_ + 1, total_, target_, phase, elapsed);
    std::fflush(out_);
  }
  void finish(const PairResult& result) {
    if (tty_) fmt::print(out_, "\r\033[K");
    fmt::print(out_, "[{}/{}] {}\n", index_ + 1, total_, format_pair_line(result));
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
  std::size_t total_;
  bool tty_;
  std::size_t index_ = 0;
  std::string target_;
  std::chrono::steady_clock::time_point started_;
};

nlohmann::json make_manifest(const RunRequest& request, const SystemInfo& system,
                             const std::string& run_id, const std::vector<PairInfo>& pairs) {
  nlohmann::json manifest = system_info_to_json(system);
  manifest["run_id"] = run_id;
  manifest["command_line"] = request.command_line;
  manifest["hardware_key"] = hardware_key(system);
  manifest["seed"] = request.measurement.seed;
  manifest["settings"] = measurement_settings_to_json(request.measurement);
  manifest["verify_only"] = request.verify_only;
  manifest["profile"] = std::string(profile_flag_name(request.profile));
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& p : pairs) targets.push_back(p.target);
  manifest["targets"] = targets;
  return manifest;
}

// Where each chapter of the run keeps its expectations: --chapters-dir/<chapter folder>, else the
// folder of the variants' sources.
std::map<std::string, std::filesystem::path> expectation_dirs(const RunRequest& request,
                                                              const std::vector<PairInfo>& pairs) {
  std::map<std::string, std::filesystem::path> chapter_dirs;
  for (const auto& p : pairs)
    chapter_dirs[p.chapter] =
        request.chapters_dir.empty()
            ? std::filesystem::path(p.baseline->source_path).parent_path()
            : request.chapters_dir / p.baseline->folder;
  return chapter_dirs;
}

// The provenance entries recorded by this run carry. An unknown commit counts as dirty: it does not
// identify the code either.
ExpectationProvenance run_provenance(const RunResults& results, const SystemInfo& system) {
  ExpectationProvenance provenance;
  provenance.gpu = system.gpus.empty() ? "none" : system.gpus.front().name;
  provenance.git_commit = system.git_commit.empty() ? "unknown" : system.git_commit;
  provenance.source_dirty = system.git_dirty || system.git_commit.empty();
  provenance.date = results.started_at.substr(0, 10);
  provenance.run_id = results.run_id;
  return provenance;
}

ExpectationUpdateOptions update_options(const RunRequest& request) {
  ExpectationUpdateOptions options;
  options.allow_mixed_provenance = request.allow_mixed_provenance;
  options.allow_dirty = request.allow_dirty;
  return options;
}

// Before measuring: would recording every selected pair be refused? Saves an hour of measuring
// whose expectations could not be written. Returns the exit code to stop with, or 0 to go on.
int precheck_expectations_update(const RunRequest& request, const std::vector<PairInfo>& pairs,
                                 const RunResults& results, const SystemInfo& system) {
  std::map<std::string, std::set<std::string>> targets_by_chapter;
  for (const auto& p : pairs) targets_by_chapter[p.chapter].insert(p.target);
  try {
    check_expectations_update(targets_by_chapter, expectation_dirs(request, pairs),
                              hardware_key(system), run_provenance(results, system),
                              update_options(request));
  } catch (const ExpectationsRefused& refused) {
    fmt::print(stderr, "error: {}\nNothing was measured.\n", refused.what());
    return 2;
  } catch (const std::runtime_error& error) {  // a damaged expectations file
    fmt::print(stderr, "error: {}\nNothing was measured.\n", error.what());
    return 1;
  }
  return 0;
}

// The committed expectations of the run's chapters for the run's hardware key, loaded once before
// the first pair so each pair's verdict lands in results.jsonl with it. Unset when the run's
// chapters have no such file (nothing to compare with). A damaged file throws std::runtime_error
// naming it.
struct CommittedExpectations {
  std::map<std::string, ExpectationEntry> entries;
  std::string hardware_key;
  double threshold = kDefaultExpectationThreshold;

  ExpectationCheck check(const PairResult& pair) const {
    return check_with_expectations(pair, entries, hardware_key, threshold);
  }
};

std::optional<CommittedExpectations> load_committed_expectations(const RunRequest& request,
                                                                 const std::vector<PairInfo>& pairs,
                                                                 const std::string& key) {
  CommittedExpectations committed;
  committed.hardware_key = key;
  committed.threshold = request.expectation_threshold.value_or(kDefaultExpectationThreshold);
  bool any_file = false;
  for (const auto& [chapter, dir] : expectation_dirs(request, pairs)) {
    const std::filesystem::path file = expectations_file(dir, key);
    std::error_code error;
    if (!std::filesystem::exists(file, error)) continue;
    any_file = true;
    const auto loaded = load_expectations(file);
    committed.entries.insert(loaded.begin(), loaded.end());
  }
  if (!any_file) return std::nullopt;
  return committed;
}

// Writes expectations for the verified pairs of this run. Returns false when they were refused
// (mixed provenance, a dirty tree): nothing is written then, and the message says why.
bool write_expectations(const RunRequest& request, const RunResults& results,
                        const std::vector<PairInfo>& pairs, const SystemInfo& system,
                        std::FILE* out) {
  try {
    const int written =
        update_expectations(results, expectation_dirs(request, pairs), hardware_key(system),
                            run_provenance(results, system), update_options(request));
    fmt::print(out, "expectations: {} entr{} written for hardware '{}'\n", written,
               written == 1 ? "y" : "ies", hardware_key(system));
    return true;
  } catch (const ExpectationsRefused& refused) {
    fmt::print(stderr, "error: {}\nexpectations: nothing written; the run's results are kept\n",
               refused.what());
    return false;
  }
}

}  // namespace

int run_suite(const RunRequest& request, const std::vector<PairInfo>& pairs, const char* argv0) {
  const SystemInfo system = collect_system_info();
  RunResults results;
  results.run_id = make_run_id();
  results.started_at = utc_now_iso8601();
  results.verify_phase = request.measurement.verify_phase;
  if (request.update_expectations && !request.verify_only) {
    if (const int refused = precheck_expectations_update(request, pairs, results, system))
      return refused;
  }
  RunDirectory directory(request.artifacts_dir, results.run_id);
  directory.write_manifest(make_manifest(request, system, results.run_id, pairs));
  directory.write_snapshot(results);
  // Written now, empty, and again as each quarantined pair finishes: a crash later loses none.
  QuarantineFile quarantine;
  quarantine.run_id = results.run_id;
  quarantine.verify_phase = results.verify_phase;
  directory.write_quarantine(quarantine);
  const std::string commit = system.git_commit.empty()
                                 ? std::string("unknown")
                                 : system.git_commit + (system.git_dirty ? "-dirty" : "");

  std::FILE* out = request.format == OutputFormat::json ? stderr : stdout;
  fmt::print(out, "aisp: {} pair(s) on {}; results in {}\n", pairs.size(),
             system.gpus.empty() ? std::string("no GPU (") + system.gpu_probe_error + ")"
                                 : system.gpus.front().name,
             directory.path().string());
  if (pairs.empty())
    fmt::print(out, "aisp: nothing selected; `aisp bench list-targets` shows what there is\n");

  const InterruptGuard guard;
  g_interrupted.store(false);
  Progress progress(out, pairs.size());
  const std::string self = self_executable(argv0);
  const auto peaks = std::filesystem::absolute(artifacts::peaks_dir(request.artifacts_dir));
  // --profile: an Nsight Compute pass per pair after its timed measurement (docs/profiling.md).
  const PairProfiler profiler(request.profile, self, request.measurement);
  if (profiler.enabled()) fmt::print(out, "aisp: {}\n", profiler.describe());

  std::optional<CommittedExpectations> expectations;
  std::string expectations_error;
  if (!request.verify_only) {
    try {
      expectations = load_committed_expectations(request, pairs, hardware_key(system));
    } catch (const std::runtime_error& error) {  // a damaged expectations file: keep the run
      expectations_error = error.what();
      fmt::print(stderr, "warning: not compared with expectations: {}\n", expectations_error);
    }
  }

  for (std::size_t i = 0; i < pairs.size() && !g_interrupted.load(); ++i) {
    const PairInfo& pair = pairs[i];
    progress.begin(i, pair.target);
    WorkerRequest worker;
    worker.target = pair.target;
    worker.settings = request.measurement;
    worker.verify_only = request.verify_only;
    worker.peaks_dir = peaks;
    WorkerLaunch launch;
    launch.argv = worker_argv(self, worker);
    launch.log_file = directory.log_path(pair.target);
    launch.timeout = std::chrono::duration<double>(request.measurement.pair_timeout_s);
    const WorkerOutcome outcome = run_worker_process(
        launch, g_interrupted, [&](const std::string& phase) { progress.show(phase); });
    PairResult result = outcome.has_result
                            ? outcome.result
                            : result_without_report(pair, outcome, launch.log_file,
                                                    request.measurement.pair_timeout_s);
    result.log_file = directory.log_name(pair.target);
    if (profiler.enabled() && !g_interrupted.load())
      result.profile = profiler.profile(pair, result, directory.path(), g_interrupted,
                                        [&](const std::string& phase) { progress.show(phase); });
    progress.finish(result);
    if (const std::string marks = marks_format::format_marks_line(result); !marks.empty())
      fmt::print(out, "      {} {}\n", result.target, marks);
    if (const std::string precision = precision_format::format_precision_line(result);
        !precision.empty())
      fmt::print(out, "      {} {}\n", result.target, precision);
    if (result.profile)
      fmt::print(out, "      {} {}\n", result.target,
                 profile_format::format_profile_line(*result.profile));
    if (request.verify_only) fmt::print(out, "{}", format_check_lines(result.verification));
    if (belongs_in_quarantine(result, results.verify_phase)) {
      quarantine.entries.push_back(make_quarantine_entry(
          result, results.verify_phase, results.run_id, commit, utc_now_iso8601()));
      directory.write_quarantine(quarantine);
    }
    if (expectations) result.expectation = expectations->check(result);
    results.pairs.push_back(std::move(result));
    directory.append_result(results.pairs.back());
    directory.write_snapshot(results);
  }

  const bool interrupted = g_interrupted.load();
  results.complete = !interrupted;
  results.finished_at = utc_now_iso8601();
  const bool expectations_compared = expectations.has_value();
  directory.write_snapshot(results);

  bool expectations_refused = false;
  if (request.update_expectations && !interrupted)
    expectations_refused = !write_expectations(request, results, pairs, system, out);
  fmt::print(out, "\n{}\n", render_text_summary(results));
  fmt::print(out, "results: {}\n", directory.path().string());
  if (!quarantine.entries.empty())
    fmt::print(out, "quarantine: {} pair(s) in {}; `{} bench quarantine-report {}` says why\n",
               quarantine.entries.size(), (directory.path() / "quarantine.json").string(),
               std::filesystem::path(argv0).filename().string(), directory.path().string());
  if (request.format == OutputFormat::json) std::cout << to_json(results).dump(2) << std::endl;

  if (interrupted) {
    fmt::print(stderr, "aisp: interrupted; the run directory holds the {} pair(s) finished\n",
               results.pairs.size());
    return 130;
  }
  for (const auto& r : results.pairs)
    if (r.status != PairStatus::passed && r.status != PairStatus::skipped) return 1;
  if (expectations_refused) return 2;
  if (request.fail_on_regression) {
    std::size_t regressions = 0;
    for (const auto& r : results.pairs)
      if (r.expectation && r.expectation->verdict == "regression") ++regressions;
    if (regressions > 0) {
      fmt::print(stderr, "aisp: {} pair(s) regressed against the expectations for '{}'; exit 1 "
                 "(--fail-on-regression)\n", regressions, hardware_key(system));
      return 1;
    }
    if (!expectations_error.empty()) {
      fmt::print(stderr, "aisp: the expectations could not be read; exit 1 "
                 "(--fail-on-regression)\n");
      return 1;
    }
    if (!expectations_compared)
      fmt::print(stderr, "note: --fail-on-regression: no expectations file for '{}' in the run's "
                 "chapters, nothing to compare with\n", hardware_key(system));
  }
  return 0;
}

}  // namespace aisp
