// The GPU integrity cheats' problem: tests/support's y = 2x + 1 over 2^24 floats (64 MiB each way,
// about 30 us on an H200), timed call by call. Each cheating variant overrides run() (and
// sometimes more).
#pragma once

#include "gpu_affine_problem.cuh"  // tests/support

namespace aisp::integrity_gpu {

using test_pairs::affine_kernel;
using GpuAffineProblem = test_pairs::GpuAffine<std::size_t{1} << 24, TimingMode::direct>;

}  // namespace aisp::integrity_gpu
