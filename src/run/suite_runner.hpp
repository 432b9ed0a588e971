// The orchestrator: runs each selected pair in a worker process, streams results to the run
// directory as they arrive, and survives faults, hangs and Ctrl-C. Returns the process exit code:
// 0 only when every selected pair passed or was skipped with a reason.
#pragma once

#include "core/pair_catalog.hpp"
#include "run/run_request.hpp"

namespace aisp {

int run_suite(const RunRequest& request, const std::vector<PairInfo>& pairs, const char* argv0);

}  // namespace aisp
