// Everything a worker does for one pair: requirements, verification, warm-up, interleaved
// adaptive sampling, statistics and the speedup interval. Exceptions propagate to run_worker,
// which turns them into a failed result.
#pragma once

#include "aisp/result.hpp"
#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "worker/worker_channel.hpp"
#include "worker/worker_request.hpp"

namespace aisp {

// The request's settings, verify_only and peaks_dir apply; its target is `pair`.
void measure_pair(const PairInfo& pair, const WorkerRequest& request, const WorkerChannel& channel,
                  PairResult& result);

// Seeds: verification runs on a seed distinct from timing, so a variant cannot pass by caching.
inline std::uint64_t verification_seed(std::uint64_t seed) { return seed ^ 0x5EED5EED5EED5EEDull; }

}  // namespace aisp
