// The C interface of libaisp_mpi.so, the small module that holds every MPI call of aisp
// (modules/mpi/aisp_mpi_module.cpp). The orchestrator opens it with dlopen only when it finds
// itself one of several ranks of a launcher (core/launcher_ranks.hpp), so an aisp binary built
// with MPI still starts, and runs everything else, on a machine without libmpi. Plain C types:
// the module and the binary share no C++ ABI. Each function returns 0 on success, or an MPI
// error code with its text written to `error` (NUL-terminated, at most error_size bytes).
#pragma once

#include <cstddef>
#include <cstdint>

// Bump when a signature below changes; the loader refuses a module of another version.
#define AISP_MPI_MODULE_ABI_VERSION 2

extern "C" {

// AISP_MPI_MODULE_ABI_VERSION of the module.
typedef int (*aisp_mpi_abi_version_fn)(void);
// MPI_Init_thread (MPI_THREAD_SINGLE is enough: only the orchestrator's main thread calls MPI);
// this process's rank and the job's size in MPI_COMM_WORLD, and the library's version text.
typedef int (*aisp_mpi_start_fn)(int* rank, int* size, char* library_version,
                                 std::size_t version_size, char* error, std::size_t error_size);
// Every rank's byte count (`all_sizes` holds `size` entries): a non-blocking all-gather polled
// with short sleeps, so a rank waiting for a slow peer (whose worker is still measuring) leaves
// the CPU to it instead of spinning.
typedef int (*aisp_mpi_all_gather_sizes_fn)(std::uint64_t mine, std::uint64_t* all_sizes,
                                            char* error, std::size_t error_size);
// Every rank's bytes, concatenated in rank order into `all` (the sum of `all_sizes` bytes).
typedef int (*aisp_mpi_all_gather_bytes_fn)(const void* mine, std::uint64_t mine_size, void* all,
                                            const std::uint64_t* all_sizes, char* error,
                                            std::size_t error_size);
// `data` (`count` floats) replaced by its elementwise sum over every rank (MPI_SUM, in place;
// count below 2^31), polled like the all-gathers.
typedef int (*aisp_mpi_all_reduce_sum_f32_fn)(float* data, std::uint64_t count, char* error,
                                              std::size_t error_size);
// MPI_Finalize.
typedef int (*aisp_mpi_finish_fn)(char* error, std::size_t error_size);
// MPI_Abort(MPI_COMM_WORLD, code): ends every rank of the job.
typedef void (*aisp_mpi_abort_fn)(int code);

}  // extern "C"
