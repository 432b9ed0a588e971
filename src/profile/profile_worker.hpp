// The worker Nsight Compute runs for one variant: the hidden `__worker --profile-variant
// baseline|optimized` mode of the same binary, started by PairProfiler (profile/pair_profiler.hpp).
#pragma once

#include "worker/worker_request.hpp"

namespace aisp {

// The hidden `__worker --profile-variant baseline|optimized` mode that ncu runs: one variant,
// no verification, kProfileWarmupRuns warm-up calls and settings.fixed_samples samples inside
// NVTX ranges named after the target and variant. Reports a PairResult whose `baseline` or
// `optimized` holds those (profiler-perturbed, never reported) samples.
int run_profile_worker(const WorkerRequest& request, int out_fd);

}  // namespace aisp
