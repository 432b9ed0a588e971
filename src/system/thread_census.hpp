// The host threads of this process (/proc/self/task), for the integrity checks that no variant
// leaves a thread running outside its own run(): one started in setup() and kept alive would
// slow the other variant while it is timed; one still working after run() returned does work
// the timer did not see (docs/integrity.md, "Roles and threads").
#pragma once

#include <string>
#include <vector>

namespace aisp {

struct HostThread {
  long tid = 0;
  std::string name;      // /proc/self/task/<tid>/comm
  bool exiting = false;  // PF_EXITING set (or a zombie): its code has returned, the kernel is
                         // removing it. A thread that run() joined can stay listed like this
                         // for microseconds after the join; it does no more work.
};

// Every thread of the process now, in no particular order.
std::vector<HostThread> host_thread_census();

// The number of entries in /proc/self/task: one directory read, cheap enough for every sample.
long host_thread_count();

// Threads in `now` that are not in `before` (by tid) and are not exiting. With
// `exempt_cuda_threads`, threads whose name starts with "cuda" or "cupti" (any case) are left out:
// the CUDA driver and CUPTI start helpers of their own on first use ("cuda-EvtHandlr", ...). So
// are those starting with "NCCL": the harness-owned communicator's (ctx.nccl()) progress and
// service threads, which the harness has NCCL name (NCCL_SET_THREAD_NAME=1). A variant could
// name a thread of its own that way; docs/integrity.md lists it as a limit.
std::vector<HostThread> threads_started_since(const std::vector<HostThread>& before,
                                              const std::vector<HostThread>& now,
                                              bool exempt_cuda_threads);

// "tid 1234 'aisp_suite', tid 1240 'worker'": for check details.
std::string describe_threads(const std::vector<HostThread>& threads);

}  // namespace aisp
