#include "measure/timing_method_choice.hpp"

#include <fmt/format.h>

namespace aisp {
namespace {

bool can_replay(const TimingCandidate& c) {
  return !c.cpu_only && c.mode != TimingMode::direct && !c.marks && c.devices <= 1 &&
         c.ranks <= 1;
}

bool wants_replay(const TimingCandidate& c, double graph_below_us) {
  return can_replay(c) &&
         (c.mode == TimingMode::graph || (c.call_us >= 0 && c.call_us < graph_below_us));
}

// Why a variant is timed per call, in its own terms.
std::string per_call_reason(const TimingCandidate& c, double graph_below_us) {
  if (c.cpu_only)
    return "host clock";
  if (c.mode == TimingMode::direct)
    return "the variant asks for per-call timing";
  if (c.marks)
    return "run() marks points (ctx.mark): timed per call";
  if (c.ranks > 1)
    return fmt::format("runs on {} ranks under mpirun, one GPU each: timed per call in lockstep "
                       "(each sample the slowest rank's time)",
                       c.ranks);
  if (c.devices > 1)
    return fmt::format("runs on {} GPUs: timed per call, with events on every GPU's stream (the "
                       "slowest GPU's time is the sample)",
                       c.devices);
  return fmt::format("{:.1f} us per call >= {:.0f} us: timed per call", c.call_us, graph_below_us);
}

}  // namespace

PairTimingChoice choose_pair_timing(const TimingCandidate& baseline,
                                    const TimingCandidate& optimized, double graph_below_us) {
  PairTimingChoice choice;
  const bool b_can = can_replay(baseline), o_can = can_replay(optimized);
  const bool b_wants = wants_replay(baseline, graph_below_us);
  const bool o_wants = wants_replay(optimized, graph_below_us);
  if (b_can && o_can) {
    choice.baseline_graph = choice.optimized_graph = b_wants || o_wants;
  } else {
    // One side cannot be replayed: the other is timed per call like it, unless it forces graph
    // replay (an asymmetry the worker refuses without a justification).
    choice.baseline_graph = b_can && baseline.mode == TimingMode::graph;
    choice.optimized_graph = o_can && optimized.mode == TimingMode::graph;
  }
  const auto note = [&](const TimingCandidate& self, const TimingCandidate& partner, bool graph,
                        bool self_wants) -> std::string {
    if (graph)
      return self_wants ? std::string{}
                        : "replayed like its partner, whose call is under the graph threshold";
    if (can_replay(self) && !can_replay(partner))
      return fmt::format("timed per call like its partner ({})",
                         per_call_reason(partner, graph_below_us));
    return per_call_reason(self, graph_below_us);
  };
  choice.baseline_note = note(baseline, optimized, choice.baseline_graph, b_wants);
  choice.optimized_note = note(optimized, baseline, choice.optimized_graph, o_wants);
  return choice;
}

}  // namespace aisp
