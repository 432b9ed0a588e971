#include "aisp/host_collective.hpp"

#include "core/context_state.hpp"
#include "core/rank_exchange.hpp"

namespace aisp {

bool ranks_in_other_processes(const Context& ctx) { return ctx.rank_count() > ctx.device_count(); }

void host_all_reduce_sum(Context& ctx, float* data, std::size_t count) {
  RankExchange* ranks = ctx.state().options.ranks;
  if (ranks == nullptr)
    return;  // one process: every GPU's buffer is this process's to add
  ranks->all_reduce_sum(data, count);
}

}  // namespace aisp
