// Honest computation for the 'overstated_host_workload' cheat; the pair's workload is the lie.
#include "overstated_host_workload_problem.hpp"

namespace aisp::integrity_cpu {
struct Baseline_overstated_host_workload : OverstatedHostWorkload {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::Baseline_overstated_host_workload)
