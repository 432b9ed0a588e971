// The same honest computation as its baseline: the pair's cheat is its declared workload (see
// overstated_host_workload_problem.hpp). Caught by: within_roofline, where the host's memory
// bandwidth is measured (aisp bench peak --figures host_memory_bandwidth).
#include "overstated_host_workload_problem.hpp"

namespace aisp::integrity_cpu {
struct OverstatedHostWorkloadOptimized : OverstatedHostWorkload {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::OverstatedHostWorkloadOptimized)
