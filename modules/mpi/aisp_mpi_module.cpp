// libaisp_mpi.so: every MPI call aisp makes, behind the C interface of src/run/mpi_module_abi.hpp.
// Built only when CMake finds MPI (AISP_WITH_MPI); loaded by the orchestrator under a launcher
// with more than one rank (docs/multi-gpu.md, "Several hosts"). Workers never load it.
#include <mpi.h>

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "run/mpi_module_abi.hpp"

namespace {

int report(int code, const char* what, char* error, std::size_t error_size) {
  if (code == MPI_SUCCESS)
    return 0;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    std::snprintf(text, sizeof(text), "?");
  if (error != nullptr && error_size > 0)
    std::snprintf(error, error_size, "%s: %s", what, text);
  return code;
}

void fail(const char* text, char* error, std::size_t error_size) {
  if (error != nullptr && error_size > 0)
    std::snprintf(error, error_size, "%s", text);
}

// Polls `request` to completion: first without sleeping (an exchange whose peers are all there,
// as in lockstep sampling, completes in microseconds, and a sleep would delay the next sample on
// this rank only), then with sleeps growing from 50 us to 2 ms (a peer still measuring a pair
// that runs on rank 0 alone: this process then takes a few hundred wake-ups a second from it).
int wait_politely(MPI_Request* request) {
  constexpr int kSpins = 2000;
  long pause_ns = 50 * 1000;
  for (int i = 0;; ++i) {
    int done = 0;
    const int code = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS || done)
      return code;
    if (i >= kSpins) {
      const timespec pause{0, pause_ns};
      nanosleep(&pause, nullptr);
      pause_ns = std::min(2 * pause_ns, 2L * 1000 * 1000);
    }
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int aisp_mpi_abi_version(void) {
  return AISP_MPI_MODULE_ABI_VERSION;
}

__attribute__((visibility("default"))) int aisp_mpi_start(int* rank, int* size,
                                                          char* library_version,
                                                          std::size_t version_size, char* error,
                                                          std::size_t error_size) {
  int provided = 0;
  int code = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
  if (code != MPI_SUCCESS)
    return report(code, "MPI_Init_thread", error, error_size);
  if ((code = MPI_Comm_rank(MPI_COMM_WORLD, rank)) != MPI_SUCCESS)
    return report(code, "MPI_Comm_rank", error, error_size);
  if ((code = MPI_Comm_size(MPI_COMM_WORLD, size)) != MPI_SUCCESS)
    return report(code, "MPI_Comm_size", error, error_size);
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(version, &length) == MPI_SUCCESS && library_version != nullptr &&
      version_size > 0) {
    // The first line is enough ("Open MPI v4.1.4, package: ...").
    std::snprintf(library_version, version_size, "%.*s",
                  static_cast<int>(std::strcspn(version, "\n")), version);
  }
  return 0;
}

__attribute__((visibility("default"))) int aisp_mpi_all_gather_sizes(std::uint64_t mine,
                                                                     std::uint64_t* all_sizes,
                                                                     char* error,
                                                                     std::size_t error_size) {
  MPI_Request request;
  int code =
      MPI_Iallgather(&mine, 1, MPI_UINT64_T, all_sizes, 1, MPI_UINT64_T, MPI_COMM_WORLD, &request);
  if (code != MPI_SUCCESS)
    return report(code, "MPI_Iallgather", error, error_size);
  return report(wait_politely(&request), "MPI_Iallgather (wait)", error, error_size);
}

__attribute__((visibility("default"))) int
aisp_mpi_all_gather_bytes(const void* mine, std::uint64_t mine_size, void* all,
                          const std::uint64_t* all_sizes, char* error, std::size_t error_size) {
  int size = 0;
  int code = MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (code != MPI_SUCCESS)
    return report(code, "MPI_Comm_size", error, error_size);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  std::uint64_t offset = 0;
  for (int r = 0; r < size; ++r) {
    const std::uint64_t count = all_sizes[r];
    if (count > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
        offset > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      fail("an exchange of more than 2 GiB: not supported", error, error_size);
      return MPI_ERR_COUNT;
    }
    counts[static_cast<std::size_t>(r)] = static_cast<int>(count);
    offsets[static_cast<std::size_t>(r)] = static_cast<int>(offset);
    offset += count;
  }
  MPI_Request request;
  code = MPI_Iallgatherv(mine, static_cast<int>(mine_size), MPI_BYTE, all, counts.data(),
                         offsets.data(), MPI_BYTE, MPI_COMM_WORLD, &request);
  if (code != MPI_SUCCESS)
    return report(code, "MPI_Iallgatherv", error, error_size);
  return report(wait_politely(&request), "MPI_Iallgatherv (wait)", error, error_size);
}

__attribute__((visibility("default"))) int
aisp_mpi_all_reduce_sum_f32(float* data, std::uint64_t count, char* error, std::size_t error_size) {
  if (count > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    fail("a host all-reduce of 2^31 floats or more: not supported", error, error_size);
    return MPI_ERR_COUNT;
  }
  MPI_Request request;
  const int code = MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                                  MPI_COMM_WORLD, &request);
  if (code != MPI_SUCCESS)
    return report(code, "MPI_Iallreduce", error, error_size);
  return report(wait_politely(&request), "MPI_Iallreduce (wait)", error, error_size);
}

__attribute__((visibility("default"))) int aisp_mpi_finish(char* error, std::size_t error_size) {
  return report(MPI_Finalize(), "MPI_Finalize", error, error_size);
}

__attribute__((visibility("default"))) void aisp_mpi_abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
}

}  // extern "C"
