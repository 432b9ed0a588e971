// Cheat: outputs() names an input buffer, so whatever sits there is "the result". Caught by:
// outputs_not_aliasing_inputs.
#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct ReturnsInput : test_pairs::CpuAffineProblem {
  void run(Context&) override { affine(0, kCount); }
  std::vector<Tensor> outputs() const override {
    return {Tensor("y", DType::f32, kCount, Memory::host, Role::output, x.data())};
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::ReturnsInput)
