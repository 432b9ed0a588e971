// Test-only pairs for ctx.mark (docs/contract.md, "Marks"): a toy "generation" on the CPU, y =
// 2x + 1 over 4096 floats (tests/support/cpu_affine_problem.hpp), with a sleep before the first
// token and one after it. Sleeps make the mark times known in advance (baseline: first token
// after >= 2 ms of a >= 3 ms run; optimized: >= 0.5 ms of >= 1 ms), so tests can check the
// harness reports them where they happened.
#pragma once

#include <chrono>
#include <thread>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {

struct MarkedProblem : CpuAffine<4096> {
  Workload workload() const override {
    Workload w = CpuAffine::workload();
    w.counters = {{"tokens", 16, "tokens"}};
    return w;
  }

 protected:
  // The "prefill" (the affine loop, then `before`), the mark, then the "decode" (`after`).
  void generate(Context& ctx, std::chrono::microseconds before, std::chrono::microseconds after,
                const char* mark = "first_token") {
    affine(0, kCount);
    std::this_thread::sleep_for(before);
    ctx.mark(mark);
    std::this_thread::sleep_for(after);
  }
};

}  // namespace aisp::test_pairs
