#include "worker/worker_target.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/variant_registry.hpp"

namespace aisp {

std::optional<PairInfo> begin_worker_result(const std::string& target,
                                            const WorkerChannel& channel, PairResult& result) {
  result.target = target;
  const auto catalog = build_pair_catalog(registered_variants(), nullptr);
  const auto found = std::find_if(catalog.begin(), catalog.end(),
                                  [&](const PairInfo& p) { return p.target == target; });
  if (found == catalog.end()) {
    result.status = PairStatus::failed;
    result.reason = fmt::format("worker: no pair '{}' in this binary", target);
    channel.result(result);
    return std::nullopt;
  }
  result.chapter = found->chapter;
  result.pair = found->pair;
  result.baseline_variant = found->baseline->stem;
  result.optimized_variant = found->optimized->stem;
  return *found;
}

}  // namespace aisp
