// Cheat: run() computes the first half and hands the second to a detached thread that finishes
// under a millisecond after run() returns: within the 5 ms the thread check used to allow for a
// joined thread to disappear, so its work was neither timed nor counted. Caught by:
// no_work_after_return (a thread still running, not exiting, when run() returned).
#include <chrono>
#include <thread>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct LateThread : test_pairs::CpuAffineProblem {
  void run(Context&) override {
    affine(0, kCount / 2);
    std::thread([this] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      affine(kCount / 2, kCount);
    }).detach();
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::LateThread)
