// One worker process for one pair: spawned as `<this binary> __worker ...` in its own process
// group, its stdout/stderr into the pair's log, its protocol lines on a pipe. The orchestrator
// waits with a deadline; a crash, a hang or an interrupt becomes that pair's result.
#pragma once

#include <atomic>
#include <chrono>
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
};

struct WorkerOutcome {
  bool has_result = false;
  PairResult result;
  std::string last_phase = "start";
  bool timed_out = false;
  bool interrupted = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
};

// `interrupt` is polled; when it turns true the worker is killed and the outcome says so.
// `on_phase` is called for each phase line (progress display).
WorkerOutcome run_worker_process(const WorkerLaunch& launch, const std::atomic<bool>& interrupt,
                                 const std::function<void(const std::string&)>& on_phase);

}  // namespace aisp
