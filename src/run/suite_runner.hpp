// The orchestrator: runs each selected pair in a worker process, streams results to the run
// directory as they arrive, and survives faults, hangs and Ctrl-C. Returns the process exit code:
// 0 only when every selected pair passed or was skipped with a reason.
#pragma once

#include "core/pair_catalog.hpp"
#include "run/run_settings.hpp"

namespace aisp {

int run_suite(const RunRequest& request, const std::vector<PairInfo>& pairs, const char* argv0);

// The hidden `__worker` subcommand: runs one pair and writes protocol lines to `out_fd`.
int run_worker(const std::string& target, const MeasurementSettings& settings, bool verify_only,
               int out_fd);

}  // namespace aisp
