// Test-only CPU problem of the library-reference pairs (tests/cli/test_library_reference.sh):
// y = 2x + 1 over 4096 floats (tests/support/cpu_affine_problem.hpp), then a sleep that
// dominates the time. A sleep's length barely depends on how busy the machine is, so the
// fraction of the "library" comes out near the ratio of the sleeps even on a loaded 2-core CI
// machine: a variant that sleeps twice as long as the library reaches about 50% of it.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {

template <int kSleepMicroseconds>
struct SleepyAffine : CpuAffine<4096> {
  void run(Context&) override {
    affine(0, kCount);
    std::this_thread::sleep_for(std::chrono::microseconds(kSleepMicroseconds));
  }
};

// A variant that stands as its pair's library reference ("TestLib").
template <int kSleepMicroseconds>
struct SleepyLibrary : SleepyAffine<kSleepMicroseconds> {
  std::string library_reference() const override { return "TestLib"; }
};

}  // namespace aisp::test_pairs
