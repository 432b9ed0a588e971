// The worker → orchestrator protocol without the aisp binary: lines written by WorkerChannel on a
// pipe read back by read_worker_line, a whole worker process (a shell printing protocol lines to
// the protocol descriptor) read by run_worker_process, and the worker's command line as
// worker_argv writes it.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/measurement_settings.hpp"
#include "results/results_json.hpp"
#include "shell_worker.hpp"
#include "system/shell_words.hpp"
#include "temp_files.hpp"
#include "worker/worker_channel.hpp"
#include "worker/worker_process.hpp"
#include "worker/worker_protocol.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

using test::ScopedTempDir;

PairResult sample_result() {
  PairResult result;
  result.target = "ch07:transpose_padded";
  result.chapter = "ch07";
  result.pair = "transpose";
  result.baseline_variant = "baseline_transpose";
  result.optimized_variant = "optimized_transpose_padded";
  result.status = PairStatus::passed;
  result.signature = {{"n", "4096"}, {"dtype", "f32"}};
  result.bytes = 134217728;
  result.flops = 0;
  VariantMeasurement measurement;
  measurement.variant = "optimized_transpose_padded";
  measurement.method = TimingMethod::graph_replay;
  measurement.runs_per_sample = 8;
  measurement.event_ms = {0.0981, 0.0979, 1.0 / 3.0};
  measurement.host_ms = {0.1, 0.11, 0.105};
  measurement.stats.count = 3;
  measurement.stats.median = 0.0981;
  measurement.stop_reason = "noise 0.31% <= 0.50% after 57 samples";
  measurement.marks = {MarkMeasurement{"first_token", {0.01, 0.02}, {}}};
  result.optimized = measurement;
  measurement.variant = "baseline_transpose";
  result.baseline = measurement;
  result.speedup = Speedup{4.2, 4.15, 4.26, 0.95, 2000, "faster"};
  result.verification.passed = true;
  result.verification.checks = {{"within_tolerance", true, "max |diff| 0"}};
  return result;
}

// Reads everything written to `fd`'s other end until it closes, split into lines.
std::vector<std::string> read_lines(int fd) {
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;)
    text.append(chunk, n);
  std::vector<std::string> lines;
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  return lines;
}

TEST(WorkerProtocol, ChannelLinesReadBackThroughAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const PairResult sent = sample_result();
  {
    const WorkerChannel channel(fds[1]);
    channel.phase("verify");
    channel.phase("timing");
    channel.result(sent);
  }
  ::close(fds[1]);
  const std::vector<std::string> lines = read_lines(fds[0]);
  ::close(fds[0]);
  ASSERT_EQ(lines.size(), 3u);
  const WorkerMessage verify = read_worker_line(lines[0]);
  EXPECT_EQ(verify.kind, WorkerMessage::Kind::phase);
  EXPECT_EQ(verify.phase, "verify");
  EXPECT_EQ(read_worker_line(lines[1]).phase, "timing");
  const WorkerMessage result = read_worker_line(lines[2]);
  ASSERT_EQ(result.kind, WorkerMessage::Kind::result);
  EXPECT_EQ(to_json(result.result), to_json(sent));
}

TEST(WorkerProtocol, ProgressLinesCarryTheirDetail) {
  const std::string line = worker_progress_line("baseline 57 samples, noise 0.84%");
  const WorkerMessage message = read_worker_line(line);
  EXPECT_EQ(message.kind, WorkerMessage::Kind::progress);
  EXPECT_EQ(message.detail, "baseline 57 samples, noise 0.84%");
  EXPECT_EQ(read_worker_line(R"({"type": 5})").kind, WorkerMessage::Kind::other);
  EXPECT_EQ(read_worker_line(R"({"type": "phase", "phase": 5})").phase, "?");
}

TEST(WorkerProtocol, InvalidUtf8InAReasonIsReplacedNotThrown) {
  PairResult crashed = sample_result();
  crashed.status = PairStatus::failed;
  crashed.reason = "log: \xff\xfe broken";
  const std::string line = worker_result_line(crashed);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const WorkerMessage message = read_worker_line(line);
  ASSERT_EQ(message.kind, WorkerMessage::Kind::result);
  EXPECT_EQ(message.result.status, PairStatus::failed);
  EXPECT_EQ(message.result.reason, "log: \xEF\xBF\xBD\xEF\xBF\xBD broken");
}

TEST(WorkerProtocol, LinesThatAreNotProtocolAreOther) {
  EXPECT_EQ(read_worker_line("warming up the GPU").kind, WorkerMessage::Kind::other);
  EXPECT_EQ(read_worker_line("[1, 2]").kind, WorkerMessage::Kind::other);
  EXPECT_EQ(read_worker_line(R"({"type": "progress"})").kind, WorkerMessage::Kind::other);
  EXPECT_EQ(read_worker_line(R"({"phase": "verify"})").kind, WorkerMessage::Kind::other);
  EXPECT_EQ(read_worker_line(R"({"type": "phase"})").phase, "?");
}

TEST(WorkerProtocol, AResultLineWithoutAResultIsAFormatError) {
  EXPECT_THROW(read_worker_line(R"({"type": "result"})"), ResultsFormatError);
  EXPECT_THROW(read_worker_line(R"({"type": "result", "result": {"status": "fine"}})"),
               ResultsFormatError);
}

// A whole worker process: a shell that prints the protocol lines to the protocol descriptor and
// other output to its log, as a real worker does.
TEST(WorkerProtocol, RunWorkerProcessReadsPhasesAndTheResult) {
  const ScopedTempDir dir("worker_protocol");
  const PairResult sent = sample_result();
  const std::string fd = std::to_string(kWorkerProtocolFd);
  const std::string script =
      "echo 'worker output'; printf '%s\\n' " + shell_quote(worker_phase_line("verify")) + " >&" +
      fd + "; printf '%s\\n' " + shell_quote(worker_result_line(sent)) + " >&" + fd;
  const WorkerLaunch launch = test::shell_worker_launch(dir.path(), script);
  const std::atomic<bool> interrupt{false};
  std::vector<std::string> phases;
  const WorkerOutcome outcome = run_worker_process(
      launch, interrupt, [&](const std::string& phase) { phases.push_back(phase); });
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_EQ(phases, std::vector<std::string>{"verify"});
  EXPECT_EQ(outcome.last_phase, "verify");
  ASSERT_TRUE(outcome.has_result);
  EXPECT_EQ(to_json(outcome.result), to_json(sent));
  EXPECT_EQ(test::read_file(launch.log_file), "worker output\n");
}

TEST(WorkerProtocol, AWorkerThatDiesBeforeItsResultHasNone) {
  const ScopedTempDir dir("worker_protocol_dies");
  const WorkerLaunch launch = test::shell_worker_launch(
      dir.path(), "printf '%s\\n' " + shell_quote(worker_phase_line("timing")) + " >&" +
                      std::to_string(kWorkerProtocolFd) + "; kill -SEGV $$");
  const std::atomic<bool> interrupt{false};
  const WorkerOutcome outcome = run_worker_process(launch, interrupt, nullptr);
  EXPECT_FALSE(outcome.has_result);
  EXPECT_EQ(outcome.last_phase, "timing");
  EXPECT_EQ(outcome.signal, SIGSEGV);
}

// Each worker gets a private TMPDIR, removed when the worker has ended, even when the worker was
// killed mid-write. Here the run is interrupted as soon as the worker says it wrote its scratch.
TEST(WorkerProtocol, TheWorkersTemporaryDirectoryIsRemovedHoweverItEnds) {
  const ScopedTempDir dir("worker_protocol_tmpdir");
  const std::string fd = std::to_string(kWorkerProtocolFd);
  const WorkerLaunch launch = test::shell_worker_launch(
      dir.path(),
      "echo \"$TMPDIR\"; mkdir \"$TMPDIR/aisp-scratch-x\" && "
      "head -c 1048576 /dev/zero > \"$TMPDIR/aisp-scratch-x/file\" && printf '%s\\n' " +
          shell_quote(worker_phase_line("scratch written")) + " >&" + fd + "; printf '%s\\n' " +
          shell_quote(worker_progress_line("waiting")) + " >&" + fd + "; sleep 60",
      120);
  std::atomic<bool> interrupt{false};
  std::vector<std::string> progress;
  WorkerEvents events;
  events.on_progress = [&](const std::string& detail) {
    progress.push_back(detail);
    interrupt.store(true);
  };
  const WorkerOutcome outcome = run_worker_process(launch, interrupt, events);
  EXPECT_TRUE(outcome.interrupted);
  EXPECT_EQ(outcome.signal, SIGKILL);
  EXPECT_EQ(outcome.last_phase, "scratch written");
  EXPECT_EQ(outcome.last_progress, "waiting");
  EXPECT_EQ(progress, std::vector<std::string>{"waiting"});
  std::string tmpdir = test::read_file(launch.log_file);
  ASSERT_FALSE(tmpdir.empty());
  tmpdir.pop_back();  // the newline
  EXPECT_NE(tmpdir.find("aisp-worker-"), std::string::npos) << tmpdir;
  EXPECT_FALSE(std::filesystem::exists(tmpdir)) << tmpdir << " was left behind";
  EXPECT_NE(outcome.temp_dir_note.find("removed the worker's temporary directory " + tmpdir +
                                       " (1.0 MiB left in it)"),
            std::string::npos)
      << outcome.temp_dir_note;
}

TEST(WorkerRequestArgv, CarriesEverySettingAndThePeaksDirectory) {
  WorkerRequest request;
  request.target = "ch90:affine";
  request.settings.max_noise = 0.02;
  request.settings.seed = 7;
  request.verify_only = true;
  request.peaks_dir = "/runs/artifacts/peaks";
  const std::vector<std::string> argv = worker_argv("/build/aisp", request);
  ASSERT_EQ(argv.size(), 11u);
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 5),
            (std::vector<std::string>{"/build/aisp", "__worker", "--target", "ch90:affine",
                                      "--settings-json"}));
  EXPECT_EQ(measurement_settings_from_json(nlohmann::json::parse(argv[5])), request.settings);
  EXPECT_EQ(std::vector<std::string>(argv.begin() + 6, argv.end()),
            (std::vector<std::string>{"--out-fd", std::to_string(kWorkerProtocolFd),
                                      "--verify-only", "--peaks-dir", "/runs/artifacts/peaks"}));
}

// The profiling pass's worker: its command line is recorded in the results (profile.command), so
// it keeps its form: no peaks directory (the default), the variant last.
TEST(WorkerRequestArgv, ProfileVariantWithTheDefaultPeaksDirectory) {
  WorkerRequest request;
  request.target = "ch07:copy_coalesced";
  request.profile_variant = "optimized";
  const std::vector<std::string> argv = worker_argv("/build/aisp", request);
  EXPECT_EQ(argv, (std::vector<std::string>{
                      "/build/aisp", "__worker", "--target", "ch07:copy_coalesced",
                      "--settings-json", measurement_settings_to_json(MeasurementSettings{}).dump(),
                      "--out-fd", "3", "--profile-variant", "optimized"}));
}

}  // namespace
}  // namespace aisp
