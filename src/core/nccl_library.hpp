// The harness side of aisp/nccl.hpp: the communicators of a run's GPUs, created through the NCCL
// library loaded at run time (nccl_library.cpp). Without nccl.h at build time these throw
// aisp::Unavailable with the reason, like a missing library.
#pragma once

#include <string>
#include <vector>

struct ncclComm;

namespace aisp::detail {

// One communicator per device 0 .. device_count - 1 (ncclCommInitAll: one process, one rank per
// GPU, rank d on device d). Throws aisp::Unavailable when NCCL is not available, CudaError-like
// std::runtime_error when NCCL refuses.
std::vector<ncclComm*> create_nccl_communicators(int device_count);
// Destroys them; errors are ignored (called from destructors).
void destroy_nccl_communicators(std::vector<ncclComm*>& communicators);

// Why NCCL is not usable here, or empty when it is (the library loads and has every function).
std::string nccl_unavailable_reason();

}  // namespace aisp::detail
