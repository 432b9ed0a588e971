// Everything a worker does for one pair: requirements, verification, warm-up, interleaved
// adaptive sampling, statistics and the speedup interval. Exceptions propagate to run_worker,
// which turns them into a failed result.
#pragma once

#include "aisp/result.hpp"
#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "core/rank_exchange.hpp"
#include "worker/worker_channel.hpp"
#include "worker/worker_request.hpp"

namespace aisp {

// The request's settings, verify_only and peaks_dir apply; its target is `pair`. `ranks`: under
// mpirun (request.rank_count > 1) the worker's way to the other ranks (core/rank_exchange.hpp):
// a multi-GPU pair then runs on every rank in lockstep, one GPU each; a one-GPU pair runs on
// rank 0 alone (the other ranks report it skipped, and rank 0's orchestrator keeps rank 0's).
void measure_pair(const PairInfo& pair, const WorkerRequest& request, const WorkerChannel& channel,
                  PairResult& result, RankExchange* ranks = nullptr);

// The reason a pair is skipped on a rank other than 0 under mpirun: a one-GPU pair runs on rank 0
// alone. The orchestrators' merge (run/rank_results.hpp) recognizes it.
inline constexpr const char* kRankZeroOnlyReason =
    "a one-GPU pair runs on rank 0 alone under mpirun";

// Seeds: verification runs on a seed distinct from timing, so a variant cannot pass by caching.
inline std::uint64_t verification_seed(std::uint64_t seed) { return seed ^ 0x5EED5EED5EED5EEDull; }

}  // namespace aisp
