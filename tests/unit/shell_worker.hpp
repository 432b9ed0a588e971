// A stand-in worker process for the unit tests: `/bin/sh -c script`, its log in a test directory.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "worker/worker_process.hpp"

namespace aisp::test {

inline WorkerLaunch shell_worker_launch(const std::filesystem::path& dir, std::string script,
                                        double timeout_s = 30) {
  WorkerLaunch launch;
  launch.argv = {"/bin/sh", "-c", std::move(script)};
  launch.log_file = dir / "worker.log";
  launch.timeout = std::chrono::duration<double>(timeout_s);
  return launch;
}

}  // namespace aisp::test
