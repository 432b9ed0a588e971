// The affine problem with its bytes overstated 100×: the measured time then lies below the
// roofline floor. Both variants declare the same (wrong) workload, so workloads_equal passes.
#pragma once

#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct OverstatedWorkloadProblem : GpuAffineProblem {
  Workload workload() const override {
    Workload w = GpuAffineProblem::workload();
    w.bytes *= 100;
    return w;
  }
};
}  // namespace aisp::integrity_gpu
