// Cheat: a CPU pair that claims to move 100 GB per call while it moves 8 MiB (y = 2x + 1 over
// 2^20 floats). CPU pairs had no ceiling, so no host speed was ever implausible. Caught by:
// within_roofline against the host's measured memory bandwidth (its median is far below the
// floor that 100 GB at that bandwidth allows).
#pragma once

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {

struct OverstatedHostWorkload : test_pairs::CpuAffineProblem {
  void run(Context&) override { affine(0, kCount); }
  Workload workload() const override {
    Workload w;
    w.bytes = 100e9;
    w.memory_ceiling = Ceiling::host_memory_bandwidth;
    w.compute_ceiling = Ceiling::none;
    return w;
  }
};

}  // namespace aisp::integrity_cpu
