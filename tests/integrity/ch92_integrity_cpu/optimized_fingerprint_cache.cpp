// Cheat: keeps its last answer and a cheap fingerprint of its input (its first element), and
// replays the answer while the fingerprint matches. Every input verification writes is new from
// the first element on, so it recomputes there; timed calls replay. Caught by:
// timed_calls_checked (before a checked sample, a few runs of input elements change in place;
// the fingerprint misses them and the replayed answer is stale).
#include <cstring>
#include <vector>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct FingerprintCache : test_pairs::CpuAffineProblem {
  std::vector<float> answer;
  float fingerprint = 0;
  void run(Context&) override {
    const float seen = x.as<float>()[0];
    if (!answer.empty() && seen == fingerprint) {
      std::memcpy(y.data(), answer.data(), kCount * sizeof(float));
      return;
    }
    affine(0, kCount);
    answer.assign(y.as<float>(), y.as<float>() + kCount);
    fingerprint = seen;
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::FingerprintCache)
