// The library reference of ch86:absent ("AbsentLib"), which finds in setup() that its library is
// not installed: aisp::Unavailable. Its own target is skipped with the reason; ch86:absent_kernel
// is measured without a fraction and says why.
#include "sleep_problem.hpp"

namespace aisp::test_pairs {
struct AbsentLibrary : SleepyAffine<500> {
  void setup(Context& ctx) override {
    SleepyAffine<500>::setup(ctx);
    throw Unavailable("test: AbsentLib (libaisp_absent_test.so) is not installed on this machine; "
                      "install it to time this variant");
  }
  std::string library_reference() const override { return "AbsentLib"; }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::AbsentLibrary)
