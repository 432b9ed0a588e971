// The orchestrator's side of an `mpirun` job (docs/multi-gpu.md, "Several hosts"): libaisp_mpi.so
// opened with dlopen (run/mpi_module_abi.hpp), MPI started, and an all-gather across the job's
// orchestrators, one per rank. Only orchestrators call MPI; their workers reach it through them.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/launcher_ranks.hpp"
#include "core/rank_exchange.hpp"

namespace aisp {

// The module or libmpi cannot be loaded, or MPI does not start: the message names what to
// install or set.
class MpiUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MpiJob final : public RankExchange {
 public:
  // Loads the module (AISP_MPI_MODULE, else beside this executable, else ../lib/aisp/ from it,
  // else where this build put or installs it) and starts MPI. Throws MpiUnavailable. `launcher`
  // is what the environment said, for the messages; MPI's own rank and size must agree with it.
  static std::unique_ptr<MpiJob> start(const LauncherRanks& launcher);
  ~MpiJob() override;  // MPI_Finalize
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> all_gather(const std::string& mine) override;
  void all_reduce_sum(float* data, std::size_t count) override;  // MPI_Allreduce, in place

  const std::string& module_path() const { return module_path_; }
  const std::string& library_version() const { return library_version_; }
  // Ends every rank of the job (MPI_Abort): for a rank that cannot go on while the others would
  // wait for it.
  [[noreturn]] void abort(int code);

 private:
  MpiJob() = default;
  struct Module;
  std::unique_ptr<Module> module_;
  int rank_ = 0, size_ = 1;
  std::string module_path_, library_version_;
};

// Where the loader looks for the module, in order (for messages and tests).
std::vector<std::string> mpi_module_candidates();

}  // namespace aisp
