#include "run/mpi_job.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <numeric>

#include "run/mpi_module_abi.hpp"

#ifndef AISP_HAVE_MPI
#define AISP_HAVE_MPI 0
#endif

namespace aisp {

struct MpiJob::Module {
  void* handle = nullptr;
  aisp_mpi_all_gather_sizes_fn all_gather_sizes = nullptr;
  aisp_mpi_all_gather_bytes_fn all_gather_bytes = nullptr;
  aisp_mpi_all_reduce_sum_f32_fn all_reduce_sum = nullptr;
  aisp_mpi_finish_fn finish = nullptr;
  aisp_mpi_abort_fn abort = nullptr;
};

namespace {

constexpr const char* kModuleFile = "libaisp_mpi.so";
constexpr const char* kInstallHint =
    "install an MPI runtime (Debian/Ubuntu: apt install openmpi-bin libopenmpi3; building needs "
    "libopenmpi-dev) or add its library directory to LD_LIBRARY_PATH";

template <class Fn>
Fn symbol(void* handle, const char* name, std::string& missing) {
  auto fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (fn == nullptr)
    missing += (missing.empty() ? "" : ", ") + std::string(name);
  return fn;
}

}  // namespace

std::vector<std::string> mpi_module_candidates() {
  std::vector<std::string> candidates;
  if (const char* forced = std::getenv("AISP_MPI_MODULE"); forced != nullptr && *forced != '\0') {
    candidates.emplace_back(forced);
    return candidates;  // an explicit choice: nothing else is tried
  }
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    candidates.push_back((self.parent_path() / kModuleFile).string());
    candidates.push_back(
        (self.parent_path().parent_path() / "lib" / "aisp" / kModuleFile).string());
  }
#ifdef AISP_MPI_MODULE_BUILD_PATH
  candidates.emplace_back(AISP_MPI_MODULE_BUILD_PATH);
#endif
#ifdef AISP_MPI_MODULE_INSTALL_PATH
  candidates.emplace_back(AISP_MPI_MODULE_INSTALL_PATH);
#endif
  return candidates;
}

std::unique_ptr<MpiJob> MpiJob::start(const LauncherRanks& launcher) {
  const std::string job =
      fmt::format("{} started {} ranks ({})", launcher.launcher, launcher.size, launcher.source);
  if (!AISP_HAVE_MPI && std::getenv("AISP_MPI_MODULE") == nullptr)
    throw MpiUnavailable(fmt::format(
        "{}, but this aisp was built without MPI (none found at configure time), so it cannot "
        "take part in the job: install libopenmpi-dev (or another MPI's development package) and "
        "reconfigure (the configure step prints 'aisp: MPI ... found'), or run aisp without "
        "mpirun",
        job));
  std::unique_ptr<MpiJob> mpi(new MpiJob());
  mpi->module_ = std::make_unique<Module>();
  Module& m = *mpi->module_;
  std::string tried;
  for (const std::string& candidate : mpi_module_candidates()) {
    std::error_code error;
    if (!std::filesystem::exists(candidate, error)) {
      tried += fmt::format("{}{} (absent)", tried.empty() ? "" : "; ", candidate);
      continue;
    }
    // RTLD_GLOBAL: Open MPI's own plugins, opened by libmpi, resolve symbols of libmpi.
    m.handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (m.handle != nullptr) {
      mpi->module_path_ = candidate;
      break;
    }
    const char* why = dlerror();
    tried += fmt::format("{}{} ({})", tried.empty() ? "" : "; ", candidate,
                         why != nullptr ? why : "cannot be loaded");
  }
  if (m.handle == nullptr)
    throw MpiUnavailable(fmt::format("{}, but aisp's MPI module cannot be loaded: {}. If libmpi "
                                     "is what is missing, {}; if the module is, build target "
                                     "aisp_mpi_module (or set AISP_MPI_MODULE to its path)",
                                     job, tried, kInstallHint));
  std::string missing;
  const auto version = symbol<aisp_mpi_abi_version_fn>(m.handle, "aisp_mpi_abi_version", missing);
  const auto start = symbol<aisp_mpi_start_fn>(m.handle, "aisp_mpi_start", missing);
  m.all_gather_sizes =
      symbol<aisp_mpi_all_gather_sizes_fn>(m.handle, "aisp_mpi_all_gather_sizes", missing);
  m.all_gather_bytes =
      symbol<aisp_mpi_all_gather_bytes_fn>(m.handle, "aisp_mpi_all_gather_bytes", missing);
  m.all_reduce_sum =
      symbol<aisp_mpi_all_reduce_sum_f32_fn>(m.handle, "aisp_mpi_all_reduce_sum_f32", missing);
  m.finish = symbol<aisp_mpi_finish_fn>(m.handle, "aisp_mpi_finish", missing);
  m.abort = symbol<aisp_mpi_abort_fn>(m.handle, "aisp_mpi_abort", missing);
  if (version != nullptr && version() != AISP_MPI_MODULE_ABI_VERSION)
    throw MpiUnavailable(fmt::format("{} is aisp's MPI module of interface version {}, this aisp "
                                     "needs {}: rebuild target aisp_mpi_module with this aisp",
                                     mpi->module_path_, version(), AISP_MPI_MODULE_ABI_VERSION));
  if (!missing.empty())
    throw MpiUnavailable(
        fmt::format("{} is not aisp's MPI module (it lacks {})", mpi->module_path_, missing));
  char library[256] = {}, error[512] = {};
  if (start(&mpi->rank_, &mpi->size_, library, sizeof(library), error, sizeof(error)) != 0)
    throw MpiUnavailable(fmt::format("{}, but MPI did not start: {}", job, error));
  mpi->library_version_ = library;
  if (mpi->rank_ != launcher.rank || mpi->size_ != launcher.size) {
    const std::string message = fmt::format(
        "{}, but MPI says this is rank {} of {}: the launcher's variables do not describe this "
        "job (started by another launcher than this MPI's?); use the mpirun of the MPI aisp was "
        "built with",
        job, mpi->rank_, mpi->size_);
    throw MpiUnavailable(message);
  }
  return mpi;
}

MpiJob::~MpiJob() {
  // Unwinding after an error: the other ranks may wait in an exchange this rank will never make,
  // and MPI_Finalize would wait for them; end the job instead.
  if (module_ && module_->abort != nullptr && std::uncaught_exceptions() > 0)
    module_->abort(1);
  if (module_ && module_->finish != nullptr) {
    char error[256] = {};
    static_cast<void>(module_->finish(error, sizeof(error)));
  }
  // The module stays loaded: libmpi may have threads or handlers left until the process ends.
}

std::vector<std::string> MpiJob::all_gather(const std::string& mine) {
  char error[512] = {};
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size_));
  if (module_->all_gather_sizes(mine.size(), sizes.data(), error, sizeof(error)) != 0)
    throw RankExchangeError(fmt::format("MPI all-gather of sizes failed: {}", error));
  const std::uint64_t total = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
  std::string all(total, '\0');
  if (module_->all_gather_bytes(mine.data(), mine.size(), all.data(), sizes.data(), error,
                                sizeof(error)) != 0)
    throw RankExchangeError(fmt::format("MPI all-gather failed: {}", error));
  std::vector<std::string> values;
  std::size_t offset = 0;
  for (const std::uint64_t size : sizes) {
    values.push_back(all.substr(offset, size));
    offset += size;
  }
  return values;
}

void MpiJob::all_reduce_sum(float* data, std::size_t count) {
  char error[512] = {};
  if (module_->all_reduce_sum(data, count, error, sizeof(error)) != 0)
    throw RankExchangeError(fmt::format("MPI all-reduce of {} floats failed: {}", count, error));
}

void MpiJob::abort(int code) {
  module_->abort(code);
  std::exit(code);  // MPI_Abort does not return; this is for a module that did
}

}  // namespace aisp
