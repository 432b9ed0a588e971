// The hidden `__worker` subcommand that measures one pair: one pair, one process. Whatever happens
// inside the pair, the worker tries to send a result line; what it cannot (a segfault, a hang)
// the orchestrator sees.
#pragma once

#include "worker/worker_request.hpp"

namespace aisp {

// Runs `request` (its profile_variant empty) and writes protocol lines to `out_fd`. Returns the
// worker's exit code: 0 when a result was sent, 2 when this binary has no such pair. Under
// mpirun (request.rank_count > 1) it reads its orchestrator's exchange replies from `reply_fd`.
int run_worker(const WorkerRequest& request, int out_fd, int reply_fd = -1);

}  // namespace aisp
