// Cheat: starts a host thread in setup() that keeps a core busy (here: waking every millisecond)
// for as long as the variant lives, while its own run() is honest. The other variant's samples
// run beside it. Caught by: no_threads_outside_run (a thread a setup() started is still running
// after it returned).
#include <atomic>
#include <chrono>
#include <thread>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct SetupThread : test_pairs::CpuAffineProblem {
  std::atomic<bool> stop{false};
  std::thread busy;
  void setup(Context& ctx) override {
    test_pairs::CpuAffineProblem::setup(ctx);
    busy = std::thread([this] {
      while (!stop.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  }
  void run(Context&) override { affine(0, kCount); }
  void teardown(Context&) override {
    stop = true;
    if (busy.joinable())
      busy.join();
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::SetupThread)
