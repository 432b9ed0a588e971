// Fault: a segfault after writing a scratch file. The orchestrator records the crash and removes
// the worker's temporary directory, scratch file included.
#include <csignal>

#include "scratch_problem.hpp"

namespace aisp::test_pairs {
struct ScratchThenCrash : ScratchWritingVariant {
  void run(Context&) override { std::raise(SIGSEGV); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::ScratchThenCrash)
