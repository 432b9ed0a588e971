// ConfiguredNcclCommunicators (nccl_configured_communicators.hpp): ncclCommInitRankConfig for
// every GPU of the run from one thread (inside one group, as NCCL requires when one thread
// initializes several ranks), with the functions of the harness's loaded libnccl.so.2.
#include "nccl_configured_communicators.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace aisp::ch04 {

std::string NcclCommunicatorConfig::describe() const {
  const auto value = [](int v, bool set) {
    return set ? std::to_string(v) : std::string("default");
  };
  return "minCTAs " + value(min_ctas, min_ctas > 0) + ", maxCTAs " + value(max_ctas, max_ctas > 0) +
         ", cgaClusterSize " + value(cga_cluster_size, cga_cluster_size >= 0);
}

#if AISP_HAVE_NCCL
namespace {

// Resolved once per process from the library the harness loaded.
const ConfiguredNcclFunctions& configured_functions() {
  static const ConfiguredNcclFunctions functions = [] {
    static_cast<void>(aisp::nccl_functions());  // throws aisp::Unavailable without NCCL
    void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (library == nullptr)
      throw aisp::Unavailable("libnccl.so.2 is not loaded under its soname although the harness "
                              "loaded NCCL; the configured communicators need the same copy");
    ConfiguredNcclFunctions f;
    std::string missing;
    const auto resolve = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
      if (fn == nullptr)
        missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    resolve(f.GetUniqueId, "ncclGetUniqueId");
    resolve(f.CommInitRankConfig, "ncclCommInitRankConfig");
    resolve(f.CommDestroy, "ncclCommDestroy");
    dlclose(library);  // drops only the reference RTLD_NOLOAD took; the harness keeps its own
    if (!missing.empty())
      throw aisp::Unavailable("the loaded NCCL lacks " + missing +
                              " (ncclConfig_t needs NCCL 2.14 or newer)");
    return f;
  }();
  return functions;
}

}  // namespace

void ConfiguredNcclCommunicators::create(int gpus, const NcclCommunicatorConfig& config) {
  destroy();
  const ConfiguredNcclFunctions& f = configured_functions();
  const aisp::NcclFunctions& nccl = aisp::nccl_functions();
  ncclUniqueId id;
  AISP_NCCL_CHECK(f.GetUniqueId(&id));
  comms_.assign(static_cast<std::size_t>(gpus), nullptr);
  // One config per rank, alive until the group ends (NCCL initializes the ranks there).
  std::vector<ncclConfig_t> configs(static_cast<std::size_t>(gpus));
  AISP_NCCL_CHECK(nccl.GroupStart());
  for (int d = 0; d < gpus; ++d) {
    ncclConfig_t& c = configs[static_cast<std::size_t>(d)];
    c = NCCL_CONFIG_INITIALIZER;
    if (config.min_ctas > 0)
      c.minCTAs = config.min_ctas;
    if (config.max_ctas > 0)
      c.maxCTAs = config.max_ctas;
    if (config.cga_cluster_size >= 0)
      c.cgaClusterSize = config.cga_cluster_size;
    c.commName = "aisp_ch04_configured";
    const aisp::ScopedDevice on(d);  // the rank's GPU: NCCL reads the current device here
    AISP_NCCL_CHECK(f.CommInitRankConfig(&comms_[static_cast<std::size_t>(d)], gpus, id, d, &c));
  }
  AISP_NCCL_CHECK(nccl.GroupEnd());
}

void ConfiguredNcclCommunicators::destroy() noexcept {
  if (comms_.empty())
    return;
  try {
    const ConfiguredNcclFunctions& f = configured_functions();
    for (ncclComm* c : comms_)
      if (c != nullptr)
        static_cast<void>(f.CommDestroy(c));
  } catch (...) {
    // Never created without the functions; nothing to release then.
  }
  comms_.clear();
}

#else  // !AISP_HAVE_NCCL

void ConfiguredNcclCommunicators::create(int, const NcclCommunicatorConfig&) {
  throw aisp::Unavailable("this aisp was built without NCCL (no nccl.h at configure time): "
                          "install NCCL's development files and reconfigure");
}

void ConfiguredNcclCommunicators::destroy() noexcept { comms_.clear(); }

#endif

}  // namespace aisp::ch04
