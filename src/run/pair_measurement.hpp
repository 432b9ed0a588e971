// Everything a worker does for one pair: requirements, verification, warm-up, interleaved
// adaptive sampling, statistics and the speedup interval. Exceptions propagate to run_worker,
// which turns them into a failed result.
#pragma once

#include "aisp/result.hpp"
#include "core/pair_catalog.hpp"
#include "run/run_settings.hpp"
#include "run/worker_channel.hpp"

namespace aisp {

void measure_pair(const PairInfo& pair, const MeasurementSettings& settings, bool verify_only,
                  const WorkerChannel& channel, PairResult& result);

// Seeds: verification runs on a seed distinct from timing, so a variant cannot pass by caching.
inline std::uint64_t verification_seed(std::uint64_t seed) { return seed ^ 0x5EED5EED5EED5EEDull; }

}  // namespace aisp
