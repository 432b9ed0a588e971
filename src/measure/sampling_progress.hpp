// Where a pair's sampling stands against its stopping rule, in a line a person can trust while
// waiting: each variant's sample count and noise against the target (or why it stopped), and the
// wall time against the limit. The worker sends it to the orchestrator's progress display and
// writes it to the pair's log.
#pragma once

#include <string>

#include "measure/interleaved_sampling.hpp"

namespace aisp {

// "baseline 57 samples, noise 0.84% (target 0.50%); optimized done: noise 0.31% <= 0.50% after
// 123 samples; 4.2 s of max 20 s". Before a variant's minimums are met it says which are still
// missing ("7 of min 10 samples, 0.21 of min 0.5 s, noise 1.20%"); with fixed sampling, "57 of 100
// samples". The sources are named in order: baseline, optimized, then the library reference.
std::string describe_sampling_progress(const InterleavedSeries& series,
                                       double seconds_since_start);

}  // namespace aisp
