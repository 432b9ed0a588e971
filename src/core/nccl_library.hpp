// The harness side of aisp/nccl.hpp: the communicators of a run's GPUs, created through the NCCL
// library loaded at run time (nccl_library.cpp). Without nccl.h at build time these throw
// aisp::Unavailable with the reason, like a missing library.
#pragma once

#include <string>
#include <vector>

struct ncclComm;

namespace aisp {
class RankExchange;
}

namespace aisp::detail {

// One communicator per device 0 .. device_count - 1 (ncclCommInitAll: one process, one rank per
// GPU, rank d on device d). Throws aisp::Unavailable when NCCL is not available, CudaError-like
// std::runtime_error when NCCL refuses.
std::vector<ncclComm*> create_nccl_communicators(int device_count);
// Under `mpirun`: this process's rank of a communicator over every rank of `ranks`, on the
// current device (ncclCommInitRank). Rank 0 makes the ncclUniqueId (ncclGetUniqueId, whose
// bootstrap root then lives in rank 0's worker) and the exchange passes it to every rank; a rank
// without NCCL makes every rank throw aisp::Unavailable naming it, so none waits for it.
ncclComm* create_nccl_rank_communicator(RankExchange& ranks);
// Destroys them; errors are ignored (called from destructors).
void destroy_nccl_communicators(std::vector<ncclComm*>& communicators);

// Why NCCL is not usable here, or empty when it is (the library loads and has every function).
std::string nccl_unavailable_reason();

}  // namespace aisp::detail
