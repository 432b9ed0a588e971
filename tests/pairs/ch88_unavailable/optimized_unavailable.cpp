// ch88:unavailable: finds in setup() that what it needs is not on this machine (as a variant
// whose dlopen of cuDNN or NVRTC fails does) and throws aisp::Unavailable. The harness records
// the target as skipped with the message, in bench verify, bench run and the profile pass alike.
#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct UnavailableVariant : CpuAffineProblem {
  void setup(Context& ctx) override {
    CpuAffineProblem::setup(ctx);
    throw Unavailable("test: libaisp_missing_test.so could not be loaded (dlopen: no such file); "
                      "install it to run ch88:unavailable");
  }
  void run(Context&) override { affine(0, kCount); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::UnavailableVariant)
