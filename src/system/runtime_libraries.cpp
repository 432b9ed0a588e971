#include "system/runtime_libraries.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aisp {
namespace {

struct Candidate {
  const char* name;
  const char* used_by;
  std::vector<std::string> sonames;  // tried in order, each on the loader's path, then the toolkit
  const char* install_hint;
};

std::vector<std::string> paths_for(const std::vector<std::string>& sonames) {
  std::vector<std::string> paths = sonames;
#ifdef AISP_CUDA_LIBRARY_DIR
  for (const std::string& soname : sonames)
    paths.push_back(std::string(AISP_CUDA_LIBRARY_DIR) + "/" + soname);
  for (const std::string& soname : sonames)
    paths.push_back(std::string(AISP_CUDA_LIBRARY_DIR) + "/../extras/CUPTI/lib64/" + soname);
#endif
  paths.push_back("/usr/local/cuda/lib64/" + sonames.front());
  return paths;
}

// Each library's own version call, read through dlsym (the headers may be absent here).
std::string version_of(const std::string& name, void* library) {
  if (name == "cuDNN") {
    using GetVersion = std::size_t (*)();
    if (auto get = reinterpret_cast<GetVersion>(dlsym(library, "cudnnGetVersion"))) {
      const std::size_t v = get();  // cuDNN 9: major * 10000 + minor * 100 + patch
      return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
    }
  } else if (name == "NCCL") {
    using GetVersion = int (*)(int*);
    if (auto get = reinterpret_cast<GetVersion>(dlsym(library, "ncclGetVersion"))) {
      int v = 0;  // NCCL >= 2.9: major * 10000 + minor * 100 + patch
      if (get(&v) == 0)
        return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
    }
  } else if (name == "NVRTC") {
    using Version = int (*)(int*, int*);
    if (auto get = reinterpret_cast<Version>(dlsym(library, "nvrtcVersion"))) {
      int major = 0, minor = 0;
      if (get(&major, &minor) == 0)
        return fmt::format("{}.{}", major, minor);
    }
  } else if (name == "CUPTI") {
    using GetVersion = int (*)(std::uint32_t*);
    if (auto get = reinterpret_cast<GetVersion>(dlsym(library, "cuptiGetVersion"))) {
      std::uint32_t v = 0;
      if (get(&v) == 0)
        return fmt::format("API {}", v);
    }
  }
  return {};
}

}  // namespace

std::vector<RuntimeLibrary> probe_runtime_libraries() {
  const std::vector<Candidate> candidates = {
      {"cuDNN", "ch18 attention_forward*_cudnn (the attention library reference)",
       {"libcudnn.so.9"}, "install cuDNN 9 (NVIDIA's libcudnn9 package) or put it on the loader's path"},
      {"NCCL", "ch04 all-reduce pairs (ctx.nccl())", {"libnccl.so.2"},
       "install NCCL (Debian/Ubuntu: libnccl2) or put it on the loader's path"},
      {"NVRTC", "ch14 ln_gelu_mask_nvrtc (runtime compilation)",
       {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"},
       "install the CUDA toolkit's NVRTC or put its lib folder on the loader's path"},
      {"CUPTI", "the traced_work_inside_stream check (docs/integrity.md)",
       {"libcupti.so.13", "libcupti.so.12", "libcupti.so"},
       "install the CUDA toolkit's CUPTI or put extras/CUPTI/lib64 on the loader's path"},
  };
  std::vector<RuntimeLibrary> found;
  for (const Candidate& c : candidates) {
    RuntimeLibrary library{c.name, c.used_by, false, {}, {}, {}};
    std::string last_error;
    for (const std::string& path : paths_for(c.sonames)) {
      void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
      if (handle == nullptr) {
        const char* why = dlerror();
        last_error = why != nullptr ? why : "not found";
        continue;
      }
      library.found = true;
      library.loaded_from = path;
      library.version = version_of(c.name, handle);
      dlclose(handle);
      break;
    }
    if (!library.found)
      library.reason = fmt::format("not found ({}; last error: {}): {}", c.sonames.front(),
                                   last_error, c.install_hint);
    found.push_back(std::move(library));
  }
  return found;
}

}  // namespace aisp
