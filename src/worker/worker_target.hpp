// What every worker process (the measuring `__worker` and the profiling one) does first: find the
// pair it was started for in this binary's registry and start its result with the pair's names.
#pragma once

#include <optional>
#include <string>

#include "aisp/result.hpp"
#include "core/pair_catalog.hpp"
#include "worker/worker_channel.hpp"

namespace aisp {

// The pair named `target`, with `result`'s target, chapter, pair and variant stems filled in.
// When this binary has no such pair, `result` is failed with the reason and sent on `channel`,
// and nullopt is returned (the worker then exits 2).
std::optional<PairInfo> begin_worker_result(const std::string& target,
                                            const WorkerChannel& channel, PairResult& result);

}  // namespace aisp
