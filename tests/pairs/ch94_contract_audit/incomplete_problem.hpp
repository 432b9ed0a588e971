// The 'incomplete' audit pair's problem: y = 2x + 1 like the honest pairs, but its contract has
// two gaps `aisp bench audit` must name: no work declared (0 bytes, 0 FLOPs) and a tolerance
// looser than the f32 default with no justification.
#pragma once

#include "cpu_affine_problem.hpp"

namespace aisp::contract_audit {

struct IncompleteProblem : test_pairs::CpuAffineProblem {
  Workload workload() const override { return {}; }
  std::optional<Tolerance> tolerance() const override { return Tolerance{1e-2, 1e-3, ""}; }
};

}  // namespace aisp::contract_audit
