// Fault: run() never returns after a scratch file was written. Killed at --timeout or on Ctrl-C,
// the worker cannot clean up; the orchestrator removes its temporary directory.
#include <chrono>
#include <thread>

#include "scratch_problem.hpp"

namespace aisp::test_pairs {
struct ScratchThenHang : ScratchWritingVariant {
  void run(Context&) override {
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::ScratchThenHang)
