// Honest baseline for the 'thread_escape' cheat.
#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct Baseline_thread_escape : test_pairs::CpuAffineBaseline {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::Baseline_thread_escape)
