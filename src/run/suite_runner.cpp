// The orchestrator: one worker process per pair, results on disk as they arrive, and an exit
// code that is 0 only when every selected pair passed or was skipped with a reason.
#include "run/suite_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "policy/expectations.hpp"
#include "policy/quarantine.hpp"
#include "profile/pair_profiler.hpp"
#include "report/marks_format.hpp"
#include "report/precision_format.hpp"
#include "report/profile_format.hpp"
#include "report/report_format.hpp"
#include "report/text_summary.hpp"
#include "results/artifacts_layout.hpp"
#include "results/results_json.hpp"
#include "core/launcher_ranks.hpp"
#include "run/mpi_job.hpp"
#include "run/progress_display.hpp"
#include "run/rank_steps.hpp"
#include "run/run_console.hpp"
#include "run/run_directory.hpp"
#include "run/run_signals.hpp"
#include "system/system_info.hpp"
#include "worker/worker_process.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

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

// A result that names the pair and its two variants, nothing measured yet.
PairResult named_result(const PairInfo& pair) {
  PairResult r;
  r.target = pair.target;
  r.chapter = pair.chapter;
  r.pair = pair.pair;
  r.baseline_variant = pair.baseline->stem;
  r.optimized_variant = pair.optimized->stem;
  return r;
}

PairResult result_without_report(const PairInfo& pair, const WorkerOutcome& outcome,
                                 const std::filesystem::path& log, double timeout_s) {
  PairResult r = named_result(pair);
  const std::string tail = log_tail(log, 3);
  const std::string context = tail.empty() ? "" : fmt::format("; log: {}", tail);
  if (outcome.interrupted) {
    r.status = PairStatus::interrupted;
    r.reason =
        fmt::format("interrupted ({}) during phase '{}'",
                    interrupt_signal_name(InterruptSignals::signal_number()), outcome.last_phase);
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

// What the orchestrator saw of a worker, appended to the pair's log after the worker's own lines:
// how it ended (a kill at the timeout or an interrupt leaves the worker no chance to say so), the
// last phase and progress, and what became of its temporary directory.
void append_to_log(const std::filesystem::path& log, const WorkerOutcome& outcome,
                   const PairResult& result, double timeout_s) {
  std::string how;
  if (outcome.interrupted)
    how = fmt::format("the run was interrupted ({}); the worker's process group was killed "
                      "(SIGKILL)",
                      interrupt_signal_name(InterruptSignals::signal_number()));
  else if (outcome.timed_out)
    how = fmt::format("no result after {:g} s (--timeout): the worker's process group was killed "
                      "(SIGKILL)",
                      timeout_s);
  else if (outcome.signal != 0)
    how = fmt::format("the worker was killed by signal {} ({})", outcome.signal,
                      strsignal(outcome.signal));
  else
    how = fmt::format("the worker exited with code {}{}", outcome.exit_code,
                      outcome.has_result ? "" : " without sending a result");
  std::ofstream out(log, std::ios::app);
  out << fmt::format("--- orchestrator, after {:.3f} s: {}\n", outcome.wall_seconds, how);
  out << fmt::format("--- last phase: {}{}\n", outcome.last_phase,
                     outcome.last_progress.empty() ? "" : " (" + outcome.last_progress + ")");
  out << fmt::format("--- recorded: {}{}{}\n", pair_status_name(result.status),
                     result.reason.empty() ? "" : ": ", result.reason);
  if (!outcome.temp_dir_note.empty())
    out << "--- " << outcome.temp_dir_note << "\n";
}

// The skip line of a pair whose reason an earlier pair of the run already printed is short: on a
// machine without a GPU every GPU pair has the same reason, said once.
std::string pair_line(const PairResult& result, std::set<std::string>& skip_reasons_shown) {
  if (result.status == PairStatus::skipped && !result.reason.empty() &&
      !skip_reasons_shown.insert(result.reason).second) {
    const std::string reason = result.reason.substr(0, result.reason.find(':'));
    return fmt::format("{} {}  {} (as above)", report_format::status_label(result.status),
                       result.target, reason);
  }
  return format_pair_line(result);
}

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
                        RunConsole& out, RunConsole& err) {
  try {
    const int written =
        update_expectations(results, expectation_dirs(request, pairs), hardware_key(system),
                            run_provenance(results, system), update_options(request));
    out.print(fmt::format("expectations: {} entr{} written for hardware '{}'\n", written,
                          written == 1 ? "y" : "ies", hardware_key(system)));
    return true;
  } catch (const ExpectationsRefused& refused) {
    err.print(fmt::format("error: {}\nexpectations: nothing written; the run's results are kept\n",
                          refused.what()));
    return false;
  }
}

// ---- Under mpirun (docs/multi-gpu.md, "Several hosts") ----

// This rank's GPU, for the job's hardware key and manifest: what rank 0 needs of every rank's.
nlohmann::json rank_gpu_json(const SystemInfo& system) {
  if (system.gpus.empty()) return nlohmann::json::object();
  const GpuInfo& g = system.gpus.front();
  return {{"name", g.name},         {"uuid", g.uuid},         {"pci_bus_id", g.pci_bus_id},
          {"cc_major", g.cc_major}, {"cc_minor", g.cc_minor}, {"sm_count", g.sm_count},
          {"memory_bytes", g.memory_bytes}};
}

// The job as one machine: rank 0's system with every rank's GPU (index = rank), so the hardware
// key names the whole job ("2x_h200" for two ranks of one H200 each).
SystemInfo job_system_info(const SystemInfo& local, const std::vector<std::string>& rank_gpus) {
  SystemInfo job = local;
  job.gpus.clear();
  for (std::size_t r = 0; r < rank_gpus.size(); ++r) {
    const nlohmann::json g = nlohmann::json::parse(rank_gpus[r]);
    if (g.empty()) continue;
    GpuInfo gpu = r == 0 && !local.gpus.empty() ? local.gpus.front() : GpuInfo{};
    gpu.index = static_cast<int>(r);
    gpu.name = g.value("name", std::string());
    gpu.uuid = g.value("uuid", std::string());
    gpu.pci_bus_id = g.value("pci_bus_id", std::string());
    gpu.cc_major = g.value("cc_major", 0);
    gpu.cc_minor = g.value("cc_minor", 0);
    gpu.sm_count = g.value("sm_count", 0);
    gpu.memory_bytes = g.value("memory_bytes", std::size_t{0});
    job.gpus.push_back(gpu);
  }
  return job;
}

// What every orchestrator of the job shares before the first pair.
struct JobStart {
  std::string run_id;                  // rank 0's
  std::vector<std::string> rank_gpus;  // rank_gpu_json of every rank
};

JobStart start_job(RankExchange& job, const std::vector<PairInfo>& pairs, const SystemInfo& system,
                   const std::string& run_id) {
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& p : pairs) targets.push_back(p.target);
  const nlohmann::json mine{{"run_id", run_id},
                            {"targets", targets},
                            {"gpu", rank_gpu_json(system).dump()}};
  const std::vector<std::string> all = job.all_gather(mine.dump());
  JobStart start;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const nlohmann::json theirs = nlohmann::json::parse(all[r]);
    if (theirs.at("targets") != targets)
      throw RankMismatch(fmt::format(
          "rank {} selected {} pair(s), rank {} {}, or others: every rank must run the same aisp "
          "with the same targets",
          r, theirs.at("targets").size(), job.rank(), targets.size()));
    start.rank_gpus.push_back(theirs.at("gpu").get<std::string>());
  }
  start.run_id = nlohmann::json::parse(all.front()).at("run_id").get<std::string>();
  return start;
}

// A result that cannot be parsed back (another rank's aisp writes another schema) still names the
// pair and why.
PairResult rank_result_from_json(const std::string& text, const PairInfo& pair, std::size_t rank) {
  try {
    return pair_result_from_json(nlohmann::json::parse(text));
  } catch (const std::exception& error) {
    PairResult r = named_result(pair);
    r.status = PairStatus::crashed;
    r.reason = fmt::format("rank {}'s result could not be read: {}", rank, error.what());
    return r;
  }
}

// One pair's worker: under mpirun with this rank and the reply channel its exchanges need.
WorkerLaunch pair_worker_launch(const std::string& self, const PairInfo& pair,
                                const RunRequest& request, const std::filesystem::path& peaks,
                                const std::filesystem::path& log_file, const MpiJob* job) {
  WorkerRequest worker;
  worker.target = pair.target;
  worker.settings = request.measurement;
  worker.verify_only = request.verify_only;
  worker.peaks_dir = peaks;
  if (job != nullptr) {
    worker.rank = job->rank();
    worker.rank_count = job->size();
  }
  WorkerLaunch launch;
  launch.argv = worker_argv(self, worker);
  launch.log_file = log_file;
  launch.timeout = std::chrono::duration<double>(request.measurement.pair_timeout_s);
  launch.reply_channel = job != nullptr;
  return launch;
}

// A rank other than 0: the same pairs in the same order, each in a worker of its own, every
// result handed to rank 0, which writes the run. Its workers' logs go to
// <run directory>/logs/rank<r>/ (on another host, that host's artifacts directory). Returns rank
// 0's exit code.
int run_rank_follower(const RunRequest& request, const std::vector<PairInfo>& pairs,
                      const char* argv0, MpiJob& job, RankSteps& steps, const std::string& run_id,
                      const std::atomic<bool>& interrupt, RunConsole& err) {
  std::filesystem::path logs = std::filesystem::absolute(
      artifacts::run_dir(request.artifacts_dir, run_id) / artifacts::kLogsDir /
      fmt::format("rank{}", job.rank()));
  std::error_code error;
  std::filesystem::create_directories(logs, error);
  if (error) {
    // Said, and the job goes on with the logs in the temporary directory: a worker needs a log.
    const std::filesystem::path wanted = logs;
    logs = std::filesystem::temp_directory_path() /
           fmt::format("aisp-{}-rank{}-logs", run_id, job.rank());
    std::filesystem::create_directories(logs);  // throws, naming it, if even that fails
    err.print(fmt::format("warning: rank {}: cannot create {} ({}); this rank's worker logs go to "
                          "{}\n",
                          job.rank(), wanted.string(), error.message(), logs.string()));
  }
  const std::string self = self_executable(argv0);
  const auto peaks = std::filesystem::absolute(artifacts::peaks_dir(request.artifacts_dir));
  WorkerEvents events;
  events.on_exchange = [&steps](const std::string& payload) { return steps.exchange(payload); };
  events.on_host_all_reduce = [&steps](float* data, std::size_t count) {
    return steps.host_all_reduce(data, count);
  };
  for (const PairInfo& pair : pairs) {
    const RankSteps::Begin begin = steps.begin_pair(pair.target, interrupt.load());
    if (begin.kind == RankSteps::Begin::Kind::job_ended) return begin.exit_code;
    if (begin.kind == RankSteps::Begin::Kind::stop) break;
    const std::filesystem::path log =
        logs / std::filesystem::path(artifacts::log_name(pair.target)).filename();
    const WorkerLaunch launch = pair_worker_launch(self, pair, request, peaks, log, &job);
    const WorkerOutcome outcome = run_worker_process(launch, interrupt, events);
    PairResult result = outcome.has_result ? outcome.result
                                           : result_without_report(pair, outcome, launch.log_file,
                                                                   request.measurement.pair_timeout_s);
    append_to_log(launch.log_file, outcome, result, request.measurement.pair_timeout_s);
    static_cast<void>(steps.finish_pair(to_json(result).dump()));
  }
  // Rank 0's exit code, once it has written the run.
  return steps.end_job(0);
}

}  // namespace

int run_suite(const RunRequest& request, const std::vector<PairInfo>& pairs, const char* argv0) {
  // From here on Ctrl-C, SIGTERM, SIGHUP and another process's SIGPIPE stop the run with a valid
  // partial run directory, and a closed stdout or stderr stops only the printing.
  const InterruptSignals signals;
  const std::atomic<bool>& interrupt = InterruptSignals::flag();
  RunConsole err(STDERR_FILENO);
  RunConsole out_console(request.format == OutputFormat::json ? STDERR_FILENO : STDOUT_FILENO);
  RunConsole& out = request.format == OutputFormat::json ? err : out_console;

  // Under mpirun with several ranks: this orchestrator is one rank, pinned to its local GPU before
  // any CUDA call, and MPI starts (its module loaded only now: docs/multi-gpu.md).
  std::optional<LauncherRanks> launcher;
  std::unique_ptr<MpiJob> job;
  try {
    launcher = detect_launcher_ranks();
    if (launcher) {
      if (request.profile != ProfileSet::none)
        throw MpiUnavailable("--profile under mpirun: the Nsight Compute pass runs one process; "
                             "profile the pair without mpirun");
      const std::string visible =
          rank_visible_devices(*launcher, std::getenv("CUDA_VISIBLE_DEVICES"));
      setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1);
      job = MpiJob::start(*launcher);
    }
  } catch (const std::runtime_error& error) {  // LauncherEnvironmentError, MpiUnavailable
    err.print(fmt::format("error: {}\nNothing was measured.\n", error.what()));
    return 2;
  }

  const SystemInfo local_system = collect_system_info();
  RunResults results;
  results.run_id = make_run_id();
  std::optional<RankSteps> steps;
  SystemInfo system = local_system;
  if (job) {
    try {
      const JobStart start = start_job(*job, pairs, local_system, results.run_id);
      results.run_id = start.run_id;
      system = job_system_info(local_system, start.rank_gpus);
    } catch (const std::exception& error) {  // RankMismatch, a damaged message
      err.print(fmt::format("error: rank {} of {}: {}\nNothing was measured.\n", job->rank(),
                            job->size(), error.what()));
      return 2;
    }
    steps.emplace(*job);
    if (job->rank() != 0)
      return run_rank_follower(request, pairs, argv0, *job, *steps, results.run_id, interrupt,
                               err);
    out.print(fmt::format("aisp: rank 0 of {} ({} via {}, MPI module {}: {}); each rank drives "
                          "one GPU, rank 0 writes the results\n",
                          job->size(), launcher->launcher, launcher->source, job->module_path(),
                          job->library_version()));
  }
  // Under mpirun every rank ends with rank 0's exit code (the `end` step the others wait for).
  const auto job_exit = [&steps](int code) { return steps ? steps->end_job(code) : code; };
  results.started_at = utc_now_iso8601();
  results.verify_phase = request.measurement.verify_phase;
  if (request.update_expectations && !request.verify_only) {
    if (const int refused = precheck_expectations_update(request, pairs, results, system))
      return job_exit(refused);
  }
  RunDirectory directory(request.artifacts_dir, results.run_id);
  nlohmann::json manifest = make_manifest(request, system, results.run_id, pairs);
  if (job) {
    manifest["mpi"] = {{"ranks", job->size()},
                       {"launcher", launcher->launcher},
                       {"library", job->library_version()}};
  }
  directory.write_manifest(manifest);
  directory.write_snapshot(results);
  // Written now, empty, and again as each quarantined pair finishes: a crash later loses none.
  QuarantineFile quarantine;
  quarantine.run_id = results.run_id;
  quarantine.verify_phase = results.verify_phase;
  directory.write_quarantine(quarantine);
  const std::string commit = system.git_commit.empty()
                                 ? std::string("unknown")
                                 : system.git_commit + (system.git_dirty ? "-dirty" : "");

  out.print(fmt::format("aisp: {} pair(s) on {}; results in {}\n", pairs.size(),
                        system.gpus.empty()
                            ? "this machine without a GPU (" + system.gpu_probe_error +
                                  "): CPU-only pairs run, GPU pairs are skipped"
                            : system.gpus.front().name,
                        directory.path().string()));
  if (pairs.empty())
    out.print("aisp: nothing selected; `aisp bench list-targets` shows what there is\n");

  ProgressDisplay progress(ProgressOutput{[&out](std::string_view text) { out.print(text); },
                                          out.is_terminal(), out.width()},
                           pairs.size(), steady_seconds());
  WorkerEvents events;
  events.on_phase = [&](const std::string& phase) { progress.phase(phase); };
  events.on_progress = [&](const std::string& detail) { progress.detail(detail); };
  events.on_wait = [&] { progress.tick(); };
  const std::string self = self_executable(argv0);
  const auto peaks = std::filesystem::absolute(artifacts::peaks_dir(request.artifacts_dir));
  // --profile: an Nsight Compute pass per pair after its timed measurement (docs/profiling.md).
  const PairProfiler profiler(request.profile, self, request.measurement);
  if (profiler.enabled())
    out.print(fmt::format("aisp: {}\n", profiler.describe()));

  std::optional<CommittedExpectations> expectations;
  std::string expectations_error;
  if (!request.verify_only) {
    try {
      expectations = load_committed_expectations(request, pairs, hardware_key(system));
    } catch (const std::runtime_error& error) {  // a damaged expectations file: keep the run
      expectations_error = error.what();
      err.print(fmt::format("warning: not compared with expectations: {}\n", expectations_error));
    }
  }

  std::set<std::string> skip_reasons_shown;
  bool ranks_go_on = true;
  for (std::size_t i = 0; i < pairs.size() && ranks_go_on; ++i) {
    const PairInfo& pair = pairs[i];
    if (steps) {
      ranks_go_on = steps->begin_pair(pair.target, interrupt.load()).kind ==
                    RankSteps::Begin::Kind::go;
      if (!ranks_go_on) break;
    } else if (interrupt.load()) {
      break;
    }
    progress.begin(i, pair.target);
    const WorkerLaunch launch = pair_worker_launch(
        self, pair, request, peaks, directory.log_path(pair.target), job.get());
    if (steps) {
      events.on_exchange = [&](const std::string& payload) { return steps->exchange(payload); };
      events.on_host_all_reduce = [&](float* data, std::size_t count) {
        return steps->host_all_reduce(data, count);
      };
    }
    const WorkerOutcome outcome = run_worker_process(launch, interrupt, events);
    PairResult result = outcome.has_result
                            ? outcome.result
                            : result_without_report(pair, outcome, launch.log_file,
                                                    request.measurement.pair_timeout_s);
    result.log_file = directory.log_name(pair.target);
    append_to_log(launch.log_file, outcome, result, request.measurement.pair_timeout_s);
    if (steps) {
      // Every rank's result of the pair, merged: the job's record of it.
      const std::vector<std::string> all = steps->finish_pair(to_json(result).dump());
      std::vector<PairResult> per_rank{result};
      for (std::size_t r = 1; r < all.size(); ++r)
        per_rank.push_back(rank_result_from_json(all[r], pair, r));
      result = merge_rank_results(per_rank);
    }
    if (profiler.enabled() && !interrupt.load())
      result.profile = profiler.profile(pair, result, directory.path(), interrupt,
                                        [&](const std::string& phase) { progress.phase(phase); });
    progress.line(
        fmt::format("[{}/{}] {}", i + 1, pairs.size(), pair_line(result, skip_reasons_shown)));
    if (const std::string marks = marks_format::format_marks_line(result); !marks.empty())
      progress.line(fmt::format("      {} {}", result.target, marks));
    if (const std::string precision = precision_format::format_precision_line(result);
        !precision.empty())
      progress.line(fmt::format("      {} {}", result.target, precision));
    if (result.profile)
      progress.line(fmt::format("      {} {}", result.target,
                                profile_format::format_profile_line(*result.profile)));
    if (request.verify_only)
      out.print(format_check_lines(result.verification));
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

  const bool interrupted = interrupt.load() || !ranks_go_on;
  results.complete = !interrupted;
  results.finished_at = utc_now_iso8601();
  const bool expectations_compared = expectations.has_value();
  directory.write_snapshot(results);

  bool expectations_refused = false;
  if (request.update_expectations && !interrupted)
    expectations_refused = !write_expectations(request, results, pairs, system, out, err);
  out.print(fmt::format("\n{}\n", render_text_summary(results)));
  out.print(fmt::format("results: {}\n", directory.path().string()));
  if (!quarantine.entries.empty())
    out.print(
        fmt::format("quarantine: {} pair(s) in {}; `{} bench quarantine-report {}` says why\n",
                    quarantine.entries.size(), (directory.path() / "quarantine.json").string(),
                    std::filesystem::path(argv0).filename().string(), directory.path().string()));
  if (request.format == OutputFormat::json) {
    RunConsole json_out(STDOUT_FILENO);
    json_out.print(to_json(results).dump(2) + "\n");
  }

  if (interrupted) {
    const int signal_number = interrupt.load() ? InterruptSignals::signal_number() : SIGINT;
    err.print(fmt::format("aisp: interrupted ({}); the run directory holds the {} pair(s) "
                          "finished\n",
                          interrupt_signal_name(signal_number), results.pairs.size()));
    return job_exit(128 + signal_number);
  }
  if (out.closed())
    err.print(fmt::format("aisp: the output was closed during the run; every pair was still "
                          "measured: {}\n",
                          directory.path().string()));
  for (const auto& r : results.pairs)
    if (r.status != PairStatus::passed && r.status != PairStatus::skipped) return job_exit(1);
  if (expectations_refused) return job_exit(2);
  if (request.fail_on_regression) {
    std::size_t regressions = 0;
    for (const auto& r : results.pairs)
      if (r.expectation && r.expectation->verdict == "regression") ++regressions;
    if (regressions > 0) {
      err.print(fmt::format("aisp: {} pair(s) regressed against the expectations for '{}'; exit 1 "
                            "(--fail-on-regression)\n",
                            regressions, hardware_key(system)));
      return job_exit(1);
    }
    if (!expectations_error.empty()) {
      err.print("aisp: the expectations could not be read; exit 1 (--fail-on-regression)\n");
      return job_exit(1);
    }
    if (!expectations_compared)
      err.print(fmt::format("note: --fail-on-regression: no expectations file for '{}' in the "
                            "run's chapters, nothing to compare with\n",
                            hardware_key(system)));
  }
  return job_exit(0);
}

}  // namespace aisp
