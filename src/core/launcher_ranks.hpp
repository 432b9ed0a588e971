// Which rank of a parallel launch (`mpirun`, `mpiexec`, `srun --mpi=pmi2`) this process is, read
// from the variables the launcher sets, and which local GPU it takes (docs/multi-gpu.md,
// "Several hosts"). Pure functions of the environment: the orchestrator reads them before any
// CUDA call, and tests give them a map.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace aisp {

struct LauncherRanks {
  std::string launcher;  // "Open MPI", "PMI", "PMIx": whose variables said so
  int rank = 0;          // global rank, 0 .. size - 1
  int size = 1;          // ranks in the job
  int local_rank = 0;    // rank among this host's ranks: its GPU
  int local_size = 1;
  std::string source;  // the variables read, for messages: "OMPI_COMM_WORLD_SIZE=2, ..."
};

// A launcher's variables that contradict each other or are not numbers (a rank beyond the size);
// the message names them and what to set.
class LauncherEnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using EnvironmentLookup = std::function<const char*(const char* name)>;

// The ranks when this process was started by a launcher with more than one rank; nullopt for a
// plain start or a job of one rank (`mpirun -np 1` runs like a plain start). Read, in order:
// Open MPI (OMPI_COMM_WORLD_SIZE, _RANK, _LOCAL_RANK, _LOCAL_SIZE); PMI, which MPICH, Intel MPI
// and srun --mpi=pmi2 set (PMI_SIZE, PMI_RANK; MPI_LOCALRANKID, MPI_LOCALNRANKS); PMIx
// (PMIX_RANK with OMPI's or PMI's size). AISP_LOCAL_RANK overrides the local rank where the
// launcher does not give it. Slurm's own SLURM_* variables are not read: a batch script
// that starts aisp once has them too. Throws LauncherEnvironmentError for inconsistent values.
std::optional<LauncherRanks> detect_launcher_ranks(const EnvironmentLookup& lookup);
std::optional<LauncherRanks> detect_launcher_ranks();  // the process's environment

// The CUDA_VISIBLE_DEVICES value that leaves a rank its one local GPU: entry `local_rank` of the
// current value (a list of indices or UUIDs) when one is set, else `local_rank` itself. Throws
// LauncherEnvironmentError when the current list has fewer entries than local ranks need.
std::string rank_visible_devices(const LauncherRanks& ranks, const char* current_visible_devices);

}  // namespace aisp
