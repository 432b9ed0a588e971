// Loads libnccl.so.2 with dlopen the first time a variant asks for a communicator, so a build or
// a machine without NCCL runs every other pair and skips the NCCL ones with the reason.
#include "core/nccl_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "aisp/benchmark.hpp"
#include "aisp/nccl.hpp"

namespace aisp {

#if AISP_HAVE_NCCL

namespace {

struct LoadedNccl {
  NcclFunctions functions;
  ncclResult_t (*CommInitAll)(ncclComm_t* comms, int count, const int* devices) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t comm) = nullptr;
  std::string error;  // empty when loaded
};

template <class Fn>
bool resolve(void* library, const char* name, Fn& fn, std::string& missing) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (fn == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return fn != nullptr;
}

LoadedNccl load() {
  LoadedNccl n;
  // NCCL's own threads get names ("NCCL Progress  0"), so the thread census can tell them from
  // threads a variant left running (system/thread_census.hpp). A user's setting stands.
  setenv("NCCL_SET_THREAD_NAME", "1", 0);
  // The soname first (the loader's path: /usr/lib/x86_64-linux-gnu for Debian's libnccl2), then
  // the CUDA toolkit's library directory, where NVIDIA's packages may put it.
  void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  std::string tried = "libnccl.so.2";
#ifdef AISP_CUDA_LIBRARY_DIR
  if (library == nullptr) {
    const std::string candidate = std::string(AISP_CUDA_LIBRARY_DIR) + "/libnccl.so.2";
    library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    tried += ", " + candidate;
  }
#endif
  if (library == nullptr) {
    const char* why = dlerror();
    n.error = fmt::format("NCCL is not installed or not on the library path (dlopen {}: {}); "
                          "install libnccl2 (or NVIDIA's NCCL package) or add its directory to "
                          "LD_LIBRARY_PATH",
                          tried, why != nullptr ? why : "not found");
    return n;
  }
  std::string missing;
  NcclFunctions& f = n.functions;
  resolve(library, "ncclAllReduce", f.AllReduce, missing);
  resolve(library, "ncclAllGather", f.AllGather, missing);
  resolve(library, "ncclReduceScatter", f.ReduceScatter, missing);
  resolve(library, "ncclSend", f.Send, missing);
  resolve(library, "ncclRecv", f.Recv, missing);
  resolve(library, "ncclGroupStart", f.GroupStart, missing);
  resolve(library, "ncclGroupEnd", f.GroupEnd, missing);
  resolve(library, "ncclGetErrorString", f.GetErrorString, missing);
  resolve(library, "ncclCommInitAll", n.CommInitAll, missing);
  resolve(library, "ncclCommDestroy", n.CommDestroy, missing);
  ncclResult_t (*get_version)(int*) = nullptr;
  resolve(library, "ncclGetVersion", get_version, missing);
  if (!missing.empty()) {
    n.error = fmt::format("the NCCL library found lacks {}: it is older than this build's nccl.h "
                          "({}.{}); install NCCL {}.{} or newer",
                          missing, NCCL_MAJOR, NCCL_MINOR, NCCL_MAJOR, NCCL_MINOR);
    return n;
  }
  if (get_version(&f.version) != ncclSuccess) f.version = 0;
  return n;  // the library stays loaded for the life of the process
}

const LoadedNccl& loaded() {
  static const LoadedNccl n = load();
  return n;
}

const LoadedNccl& loaded_or_throw() {
  const LoadedNccl& n = loaded();
  if (!n.error.empty()) throw Unavailable(n.error);
  return n;
}

}  // namespace

const NcclFunctions& nccl_functions() { return loaded_or_throw().functions; }

void throw_nccl_error(int result, const char* expression, const char* file, int line) {
  const LoadedNccl& n = loaded();
  const char* text = n.error.empty() ? n.functions.GetErrorString(static_cast<ncclResult_t>(result))
                                     : "unknown";
  throw std::runtime_error(
      fmt::format("{}:{}: {} failed: NCCL error {} ({})", file, line, expression, result, text));
}

namespace detail {

std::string nccl_unavailable_reason() { return loaded().error; }

std::vector<ncclComm*> create_nccl_communicators(int device_count) {
  const LoadedNccl& n = loaded_or_throw();
  std::vector<int> devices(static_cast<std::size_t>(device_count));
  for (int d = 0; d < device_count; ++d) devices[static_cast<std::size_t>(d)] = d;
  std::vector<ncclComm_t> communicators(devices.size(), nullptr);
  const ncclResult_t status = n.CommInitAll(communicators.data(), device_count, devices.data());
  if (status != ncclSuccess)
    throw std::runtime_error(fmt::format("ncclCommInitAll over {} GPU(s) failed: {} ({}); "
                                         "NCCL_DEBUG=INFO says why",
                                         device_count, n.functions.GetErrorString(status),
                                         static_cast<int>(status)));
  return {communicators.begin(), communicators.end()};
}

void destroy_nccl_communicators(std::vector<ncclComm*>& communicators) {
  const LoadedNccl& n = loaded();
  if (n.error.empty())
    for (ncclComm* c : communicators)
      if (c != nullptr) static_cast<void>(n.CommDestroy(c));
  communicators.clear();
}

}  // namespace detail

#else  // !AISP_HAVE_NCCL

namespace detail {

std::string nccl_unavailable_reason() {
  return "this aisp was built without NCCL (no nccl.h found at configure time): install NCCL's "
         "development files (libnccl-dev, or the CUDA toolkit's NCCL) and reconfigure";
}

std::vector<ncclComm*> create_nccl_communicators(int /*device_count*/) {
  throw Unavailable(nccl_unavailable_reason());
}

void destroy_nccl_communicators(std::vector<ncclComm*>& communicators) { communicators.clear(); }

}  // namespace detail

#endif  // AISP_HAVE_NCCL

}  // namespace aisp
