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
#include "core/rank_exchange.hpp"

namespace aisp {

#if AISP_HAVE_NCCL

namespace {

struct LoadedNccl {
  NcclFunctions functions;
  ncclResult_t (*CommInitAll)(ncclComm_t* comms, int count, const int* devices) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t comm) = nullptr;
  ncclResult_t (*GetUniqueId)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*CommInitRank)(ncclComm_t* comm, int count, ncclUniqueId id, int rank) = nullptr;
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
  resolve(library, "ncclGetUniqueId", n.GetUniqueId, missing);
  resolve(library, "ncclCommInitRank", n.CommInitRank, missing);
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

namespace {

std::string to_hex(const unsigned char* bytes, std::size_t count) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (std::size_t i = 0; i < count; ++i) {
    hex += kDigits[bytes[i] >> 4];
    hex += kDigits[bytes[i] & 15];
  }
  return hex;
}

bool from_hex(const std::string& hex, unsigned char* bytes, std::size_t count) {
  if (hex.size() != 2 * count) return false;
  const auto digit = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  for (std::size_t i = 0; i < count; ++i) {
    const int high = digit(hex[2 * i]), low = digit(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    bytes[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return true;
}

}  // namespace

ncclComm* create_nccl_rank_communicator(RankExchange& ranks) {
  const LoadedNccl& n = loaded();
  // One exchange: each rank says whether it has NCCL; rank 0 adds the communicator's id.
  std::string mine = n.error.empty() ? "ok" : "error:" + n.error;
  ncclUniqueId id{};
  if (ranks.rank() == 0 && n.error.empty()) {
    const ncclResult_t status = n.GetUniqueId(&id);
    mine = status == ncclSuccess
               ? "id:" + to_hex(reinterpret_cast<const unsigned char*>(id.internal), sizeof(id))
               : fmt::format("error:ncclGetUniqueId failed: {} ({}); NCCL_DEBUG=INFO says why",
                             n.functions.GetErrorString(status), static_cast<int>(status));
  }
  const std::vector<std::string> all = ranks_gather(&ranks, mine);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].rfind("error:", 0) == 0)
      throw Unavailable(fmt::format("NCCL on rank {} of {}: {}", r, all.size(), all[r].substr(6)));
  if (all.front().rfind("id:", 0) != 0 ||
      !from_hex(all.front().substr(3), reinterpret_cast<unsigned char*>(id.internal), sizeof(id)))
    throw RankExchangeError(fmt::format("rank 0 sent no NCCL id (got '{}')", all.front()));
  ncclComm_t comm = nullptr;
  const ncclResult_t status = n.CommInitRank(&comm, ranks.size(), id, ranks.rank());
  if (status != ncclSuccess)
    throw std::runtime_error(fmt::format("ncclCommInitRank (rank {} of {}) failed: {} ({}); "
                                         "NCCL_DEBUG=INFO says why",
                                         ranks.rank(), ranks.size(),
                                         n.functions.GetErrorString(status),
                                         static_cast<int>(status)));
  return comm;
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

ncclComm* create_nccl_rank_communicator(RankExchange& ranks) {
  // Every rank still takes part in the exchange, so none waits for this one.
  const std::vector<std::string> all = ranks_gather(&ranks, "error:" + nccl_unavailable_reason());
  throw Unavailable(fmt::format("NCCL on rank {} of {}: {}", ranks.rank(), all.size(),
                                nccl_unavailable_reason()));
}

void destroy_nccl_communicators(std::vector<ncclComm*>& communicators) { communicators.clear(); }

}  // namespace detail

#endif  // AISP_HAVE_NCCL

}  // namespace aisp
