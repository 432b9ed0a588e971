// A host collective for multi-GPU pairs that stage through host memory (docs/multi-gpu.md,
// "Several hosts"). In one process the run's GPUs are all here and a pair adds their buffers
// itself; under `mpirun` each rank holds one GPU's buffer, and this sums it with the other
// ranks' on the host, through the harness (each worker's orchestrator, MPI between them).
#pragma once

#include <cstddef>

#include "aisp/context.hpp"

namespace aisp {

// Whether the run's GPUs are spread over processes (mpirun): ctx.rank_count() GPUs, of which
// this process holds ctx.device_count(). A host-staged step over every GPU's buffer then needs
// host_all_reduce_sum.
bool ranks_in_other_processes(const Context& ctx);

// `data` (host memory, `count` floats) replaced by its elementwise sum over every rank, in rank
// order (two ranks: a + b, rounded once, as one process adds). Every rank must call it with the
// same count, at the same point of run(). In one process (no other ranks) it leaves `data` as it
// is. Throws std::runtime_error when the other ranks have left the pair.
void host_all_reduce_sum(Context& ctx, float* data, std::size_t count);

}  // namespace aisp
