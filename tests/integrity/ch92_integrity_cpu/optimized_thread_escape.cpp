// Cheat: run() hands the work to a detached host thread and returns at once, so a timer around
// run() sees almost nothing. Caught by: no_work_after_return (a thread still alive after run()).
#include <chrono>
#include <thread>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct EscapingThread : test_pairs::CpuAffineProblem {
  void run(Context&) override {
    std::thread([this] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      affine(0, kCount);
    }).detach();
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::EscapingThread)
