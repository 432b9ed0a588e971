// NCCL for multi-GPU pairs, loaded at run time. The harness opens libnccl.so.2 the first time a
// variant asks for ctx.nccl(), so a machine without NCCL still runs every other pair and skips the
// NCCL ones with the reason (aisp::Unavailable), and the build needs only nccl.h (the CUDA
// toolkit's, found at configure time: AISP_HAVE_NCCL is 1 when it was). Without the header the
// functions below do not exist; a variant guards its NCCL calls with `#if AISP_HAVE_NCCL`, and
// its setup() still asks for ctx.nccl(), which then throws Unavailable.
#pragma once

#ifndef AISP_HAVE_NCCL
#define AISP_HAVE_NCCL 0
#endif

#if AISP_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

namespace aisp {

// The NCCL entry points a pair calls, resolved from the library the harness loaded. Names follow
// NCCL's, without the prefix.
struct NcclFunctions {
  ncclResult_t (*AllReduce)(const void* send, void* receive, size_t count, ncclDataType_t type,
                            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) = nullptr;
  ncclResult_t (*AllGather)(const void* send, void* receive, size_t send_count,
                            ncclDataType_t type, ncclComm_t comm, cudaStream_t stream) = nullptr;
  ncclResult_t (*ReduceScatter)(const void* send, void* receive, size_t receive_count,
                                ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                cudaStream_t stream) = nullptr;
  ncclResult_t (*Send)(const void* send, size_t count, ncclDataType_t type, int peer,
                       ncclComm_t comm, cudaStream_t stream) = nullptr;
  ncclResult_t (*Recv)(void* receive, size_t count, ncclDataType_t type, int peer,
                       ncclComm_t comm, cudaStream_t stream) = nullptr;
  ncclResult_t (*GroupStart)() = nullptr;
  ncclResult_t (*GroupEnd)() = nullptr;
  const char* (*GetErrorString)(ncclResult_t result) = nullptr;
  int version = 0;  // ncclGetVersion: 22809 for 2.28.9
};

// The loaded library's functions. Throws aisp::Unavailable when libnccl.so.2 cannot be loaded or
// lacks one of them (what is missing and how to install it).
const NcclFunctions& nccl_functions();

[[noreturn]] void throw_nccl_error(int result, const char* expression, const char* file, int line);

}  // namespace aisp

// A checked NCCL call through the loaded library: AISP_NCCL_CHECK(nccl.AllReduce(...)).
#define AISP_NCCL_CHECK(expression)                                                  \
  do {                                                                               \
    const ncclResult_t aisp_nccl_status_ = (expression);                             \
    if (aisp_nccl_status_ != ncclSuccess)                                            \
      ::aisp::throw_nccl_error(static_cast<int>(aisp_nccl_status_), #expression, __FILE__, \
                               __LINE__);                                            \
  } while (0)

#endif  // AISP_HAVE_NCCL
