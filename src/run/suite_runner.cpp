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
#include <iostream>
#include <nlohmann/json.hpp>

#include "report/expectations.hpp"
#include "report/results_json.hpp"
#include "report/text_summary.hpp"
#include "run/run_directory.hpp"
#include "run/worker_process.hpp"
#include "system/system_info.hpp"

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
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& p : pairs) targets.push_back(p.target);
  manifest["targets"] = targets;
  return manifest;
}

// Writes expectations for the verified pairs of this run; the chapter folders come from the
// variants' source paths.
void write_expectations(const RunResults& results, const std::vector<PairInfo>& pairs,
                        const SystemInfo& system, std::FILE* out) {
  std::map<std::string, std::filesystem::path> chapter_dirs;
  for (const auto& p : pairs)
    chapter_dirs[p.chapter] = std::filesystem::path(p.baseline->source_path).parent_path();
  ExpectationProvenance provenance;
  provenance.gpu = system.gpus.empty() ? "none" : system.gpus.front().name;
  provenance.git_commit = system.git_commit.empty() ? "unknown" : system.git_commit;
  if (system.git_dirty) provenance.git_commit += "-dirty";
  provenance.date = results.started_at.substr(0, 10);
  provenance.run_id = results.run_id;
  const int written = update_expectations(results, chapter_dirs, hardware_key(system), provenance);
  fmt::print(out, "expectations: {} entr{} written for hardware '{}'\n", written,
             written == 1 ? "y" : "ies", hardware_key(system));
}

}  // namespace

int run_suite(const RunRequest& request, const std::vector<PairInfo>& pairs, const char* argv0) {
  const SystemInfo system = collect_system_info();
  RunResults results;
  results.run_id = make_run_id();
  results.started_at = utc_now_iso8601();
  RunDirectory directory(request.artifacts_dir, results.run_id);
  directory.write_manifest(make_manifest(request, system, results.run_id, pairs));
  directory.write_snapshot(results);

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
  const std::string settings = measurement_settings_to_json(request.measurement).dump();
  const auto peaks = std::filesystem::absolute(request.artifacts_dir / "peaks");

  for (std::size_t i = 0; i < pairs.size() && !g_interrupted.load(); ++i) {
    const PairInfo& pair = pairs[i];
    progress.begin(i, pair.target);
    WorkerLaunch launch;
    launch.argv = {self, "__worker", "--target", pair.target, "--settings-json", settings,
                   "--out-fd", "3"};
    if (request.verify_only) launch.argv.push_back("--verify-only");
    launch.log_file = directory.log_path(pair.target);
    launch.timeout = std::chrono::duration<double>(request.measurement.pair_timeout_s);
    launch.environment = {{"AISP_PEAKS_DIR", peaks.string()}};
    const WorkerOutcome outcome = run_worker_process(
        launch, g_interrupted, [&](const std::string& phase) { progress.show(phase); });
    PairResult result = outcome.has_result
                            ? outcome.result
                            : result_without_report(pair, outcome, launch.log_file,
                                                    request.measurement.pair_timeout_s);
    result.log_file = directory.log_name(pair.target);
    progress.finish(result);
    results.pairs.push_back(std::move(result));
    directory.append_result(results.pairs.back());
    directory.write_snapshot(results);
  }

  const bool interrupted = g_interrupted.load();
  results.complete = !interrupted;
  results.finished_at = utc_now_iso8601();
  directory.write_snapshot(results);

  if (request.update_expectations && !interrupted) write_expectations(results, pairs, system, out);
  fmt::print(out, "\n{}\n", render_text_summary(results));
  fmt::print(out, "results: {}\n", directory.path().string());
  if (request.format == OutputFormat::json) std::cout << to_json(results).dump(2) << std::endl;

  if (interrupted) {
    fmt::print(stderr, "aisp: interrupted; the run directory holds the {} pair(s) finished\n",
               results.pairs.size());
    return 130;
  }
  for (const auto& r : results.pairs)
    if (r.status != PairStatus::passed && r.status != PairStatus::skipped) return 1;
  return 0;
}

}  // namespace aisp
