// How a pair is timed: both variants by the same method, so a speedup never comes from one of
// them being replayed in a CUDA graph (launch overhead removed) while the other is timed call by
// call. The choice is made for the pair from what each variant allows and how long a call takes
// (docs/measurement.md, "Timing method"); a pair may still be timed differently where a variant
// forces it and says why (Benchmark::timing_asymmetry_justification), and the worker's
// `timing_methods_equal` check holds it to that.
#pragma once

#include <string>

#include "aisp/benchmark.hpp"

namespace aisp {

// What one variant allows, known after its warm-up.
struct TimingCandidate {
  bool cpu_only = false;
  TimingMode mode = TimingMode::automatic;
  bool marks = false;   // run() marks points: timed per call
  double call_us = -1;  // median of the probe calls; < 0 when not probed (direct, marks, CPU)
  int devices = 1;      // GPUs the variant runs on; a multi-GPU variant is timed per call
  int ranks = 1;        // processes under mpirun (one GPU each); timed per call as well
};

struct PairTimingChoice {
  bool baseline_graph = false, optimized_graph = false;
  // Why, for each variant's stop_reason: the per-call reason, or for a replayed variant that
  // follows its partner, that it does (empty for one replayed on its own account).
  std::string baseline_note, optimized_note;
};

// Both variants by graph replay when both allow it and either asks for it (TimingMode::graph)
// or takes less than `graph_below_us` per call; otherwise both per call, except that a variant
// that forces graph replay keeps it when its partner cannot be replayed (direct, marks): that
// pair is timed asymmetrically, which the worker fails unless a variant justifies it.
PairTimingChoice choose_pair_timing(const TimingCandidate& baseline,
                                    const TimingCandidate& optimized, double graph_below_us);

}  // namespace aisp
