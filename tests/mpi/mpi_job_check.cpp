// Run under `mpirun -np N` by tests/cli/test_mpi.sh: the orchestrators' MPI job itself (the
// module's all-gathers, small and large, and the in-place host all-reduce), outside a run.
// Prints "mpi job check: ok" on rank 0 and exits 0 when every rank saw the right values.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/launcher_ranks.hpp"
#include "run/mpi_job.hpp"

int main() {
  using namespace aisp;
  const std::optional<LauncherRanks> launcher = detect_launcher_ranks();
  if (!launcher) {
    std::fprintf(stderr, "mpi job check: not started by a launcher with several ranks\n");
    return 2;
  }
  try {
    const std::unique_ptr<MpiJob> job = MpiJob::start(*launcher);
    const int rank = job->rank(), size = job->size();
    int problems = 0;
    const auto check = [&](bool ok, const std::string& what) {
      if (!ok) {
        std::fprintf(stderr, "rank %d: FAIL %s\n", rank, what.c_str());
        ++problems;
      }
    };
    // Small, empty and large (4 MiB, rank-dependent) contributions.
    const std::vector<std::string> small = job->all_gather(fmt::format("rank {}", rank));
    check(static_cast<int>(small.size()) == size, "all_gather size");
    for (int r = 0; r < size && r < static_cast<int>(small.size()); ++r)
      check(small[static_cast<std::size_t>(r)] == fmt::format("rank {}", r), "all_gather value");
    const std::vector<std::string> empty = job->all_gather(rank == 0 ? "x" : "");
    check(empty.front() == "x" && empty.back().empty() == (size > 1), "all_gather of empty");
    const std::string large(std::size_t{4} << 20, static_cast<char>('a' + rank));
    const std::vector<std::string> big = job->all_gather(large);
    for (int r = 0; r < size; ++r)
      check(big[static_cast<std::size_t>(r)] ==
                std::string(std::size_t{4} << 20, static_cast<char>('a' + r)),
            "large all_gather");
    // The host all-reduce: element i of rank r holds r + i; the sum is size * i + size(size-1)/2.
    std::vector<float> data(std::size_t{1} << 20);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(rank + i % 1000);
    job->all_reduce_sum(data.data(), data.size());
    for (std::size_t i = 0; i < data.size(); i += 997)
      check(data[i] == static_cast<float>(size * static_cast<int>(i % 1000) + size * (size - 1) / 2),
            fmt::format("all_reduce_sum element {}: {}", i, data[i]));
    const std::vector<std::string> verdicts = job->all_gather(problems == 0 ? "ok" : "FAIL");
    bool all_ok = true;
    for (const std::string& v : verdicts) all_ok = all_ok && v == "ok";
    if (rank == 0) std::printf("mpi job check: %s (%d ranks)\n", all_ok ? "ok" : "FAIL", size);
    return all_ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "mpi job check: %s\n", error.what());
    return 1;
  }
}
