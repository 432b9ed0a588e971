// One worker process for one pair: spawned as `<this binary> __worker ...` in its own process
// group, its stdout/stderr into the pair's log, its protocol lines on a pipe. The orchestrator
// waits with a deadline; a crash, a hang or an interrupt becomes that pair's result.
//
// Each process gets a private temporary directory, its TMPDIR (so the scratch files of
// ctx.scratch_dir() and anything else it puts in the temp directory land there), which is removed
// when the process has ended, however it ended: a result, a crash, a kill at the timeout or an
// interrupt of the run. A 256 MiB scratch file of a killed file-read pair is not left in /tmp.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "aisp/result.hpp"

namespace aisp {

struct WorkerLaunch {
  std::vector<std::string> argv;  // argv[0] is the executable
  std::filesystem::path log_file;
  std::chrono::duration<double> timeout;
  std::vector<std::pair<std::string, std::string>> environment;  // added to the worker's
  // Under mpirun: a second pipe, the worker's kWorkerReplyFd, on which the orchestrator answers
  // its exchange lines (WorkerEvents::on_exchange), and a memory file both map, the worker's
  // kWorkerSharedMemoryFd, for its host collectives (WorkerEvents::on_host_all_reduce).
  bool reply_channel = false;
};

struct WorkerOutcome {
  bool has_result = false;
  PairResult result;
  std::string last_phase = "start";
  std::string last_progress;  // the last progress line, if the worker sent one
  bool timed_out = false;
  bool interrupted = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  double wall_seconds = 0;
  // The private temporary directory and what became of it: "removed /tmp/aisp-worker-x1 (257 MiB
  // left by the worker)", or why there was none or it could not be removed.
  std::string temp_dir_note;
};

// What the orchestrator hears while a worker runs; any may be empty.
struct WorkerEvents {
  std::function<void(const std::string&)> on_phase;     // a phase line
  std::function<void(const std::string&)> on_progress;  // a progress line (samples vs the rule)
  std::function<void()> on_wait;                        // about every 100 ms while waiting
  // An exchange line's payload; returns the reply line (without its newline). Without it, or
  // without WorkerLaunch::reply_channel, exchange lines are ignored.
  std::function<std::string(const std::string&)> on_exchange;
  // A host all-reduce of `count` floats, which the worker left in the shared memory: sum them
  // there in place; returns the reply line.
  std::function<std::string(float* data, std::size_t count)> on_host_all_reduce;
};

// `interrupt` is polled; when it turns true the worker is killed and the outcome says so.
WorkerOutcome run_worker_process(const WorkerLaunch& launch, const std::atomic<bool>& interrupt,
                                 const WorkerEvents& events);

// The same with only the phase callback (the profiling pass).
WorkerOutcome run_worker_process(const WorkerLaunch& launch, const std::atomic<bool>& interrupt,
                                 const std::function<void(const std::string&)>& on_phase);

}  // namespace aisp
