#include "core/launcher_ranks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace aisp {
namespace {

// A variable's value as a non-negative integer; nullopt when unset; throws when set but not one.
std::optional<int> read_count(const EnvironmentLookup& lookup, const char* name,
                              std::string& source) {
  const char* value = lookup(name);
  if (value == nullptr)
    return std::nullopt;
  const std::string_view text(value);
  int parsed = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || parsed < 0)
    throw LauncherEnvironmentError(fmt::format(
        "{}='{}' is not a non-negative integer: the launcher's variables are damaged; start aisp "
        "with mpirun/mpiexec, or unset it for a plain run",
        name, text));
  source += fmt::format("{}{}={}", source.empty() ? "" : ", ", name, parsed);
  return parsed;
}

struct Names {
  const char* launcher;
  const char* size;
  const char* rank;
  const char* local_rank;
  const char* local_size;
};

}  // namespace

std::optional<LauncherRanks> detect_launcher_ranks(const EnvironmentLookup& lookup) {
  static const std::vector<Names> kLaunchers = {
      {"Open MPI", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
       "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"PMI", "PMI_SIZE", "PMI_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      {"PMIx", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
       "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"PMIx", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
  };
  for (const Names& names : kLaunchers) {
    std::string source;
    const std::optional<int> size = read_count(lookup, names.size, source);
    if (!size)
      continue;
    const std::optional<int> rank = read_count(lookup, names.rank, source);
    if (!rank)
      continue;
    if (*size <= 1) {
      if (*rank != 0)
        throw LauncherEnvironmentError(
            fmt::format("{}: rank {} of a job of {}: the launcher's variables contradict each "
                        "other",
                        source, *rank, *size));
      return std::nullopt;  // one rank: a plain run
    }
    if (*rank >= *size)
      throw LauncherEnvironmentError(fmt::format(
          "{}: rank {} is not below the job's size {}: the launcher's variables contradict each "
          "other",
          source, *rank, *size));
    LauncherRanks ranks;
    ranks.launcher = names.launcher;
    ranks.rank = *rank;
    ranks.size = *size;
    std::optional<int> local_rank = read_count(lookup, names.local_rank, source);
    std::optional<int> local_size = read_count(lookup, names.local_size, source);
    if (const std::optional<int> forced = read_count(lookup, "AISP_LOCAL_RANK", source)) {
      local_rank = forced;
      if (!local_size)
        local_size = *forced + 1;
    }
    if (!local_rank)
      throw LauncherEnvironmentError(fmt::format(
          "{} started {} ranks ({}) but did not say which of this host's GPUs rank {} takes "
          "({} unset): set AISP_LOCAL_RANK for each rank (e.g. from your launcher's local rank)",
          names.launcher, *size, source, *rank, names.local_rank));
    if (!local_size)
      local_size = *local_rank + 1;
    if (*local_rank >= *local_size || *local_size > *size)
      throw LauncherEnvironmentError(
          fmt::format("{}: local rank {} of {} local ranks in a job of {}: the launcher's "
                      "variables contradict each other",
                      source, *local_rank, *local_size, *size));
    ranks.local_rank = *local_rank;
    ranks.local_size = *local_size;
    ranks.source = source;
    return ranks;
  }
  return std::nullopt;
}

std::optional<LauncherRanks> detect_launcher_ranks() {
  return detect_launcher_ranks([](const char* name) { return std::getenv(name); });
}

std::string rank_visible_devices(const LauncherRanks& ranks, const char* current_visible_devices) {
  if (current_visible_devices == nullptr || *current_visible_devices == '\0')
    return std::to_string(ranks.local_rank);
  std::vector<std::string> entries;
  std::string entry;
  for (const char* c = current_visible_devices;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!entry.empty())
        entries.push_back(entry);
      entry.clear();
      if (*c == '\0')
        break;
    } else if (*c != ' ') {
      entry += *c;
    }
  }
  if (static_cast<int>(entries.size()) < ranks.local_size)
    throw LauncherEnvironmentError(fmt::format(
        "CUDA_VISIBLE_DEVICES={} lists {} GPU(s) for the {} ranks this host runs: give each local "
        "rank a GPU (list at least {}), or start fewer ranks per host",
        current_visible_devices, entries.size(), ranks.local_size, ranks.local_size));
  return entries[static_cast<std::size_t>(ranks.local_rank)];
}

}  // namespace aisp
