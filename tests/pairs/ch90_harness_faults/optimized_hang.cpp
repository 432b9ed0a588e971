// Fault: run() never returns. The per-pair timeout must kill the worker and record a timeout.
#include <chrono>
#include <thread>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct HangingVariant : CpuAffineProblem {
  void run(Context&) override {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::HangingVariant)
