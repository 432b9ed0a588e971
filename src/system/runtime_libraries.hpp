// The libraries the suite opens at run time rather than links (cuDNN, NCCL, NVRTC, CUPTI): whether
// this machine has them and which version, for `aisp system info` and every run's manifest. A
// pair that needs a missing one skips with the reason when it runs (aisp::Unavailable); this
// says so before any pair is run.
#pragma once

#include <string>
#include <vector>

namespace aisp {

struct RuntimeLibrary {
  std::string name;         // "cuDNN"
  std::string used_by;      // "ch18 attention_forward_cudnn (the library reference)"
  bool found = false;
  std::string version;      // "9.14.0"; empty when not found or the library has no version call
  std::string loaded_from;  // the path or soname dlopen accepted
  std::string reason;       // why not found: what was tried, and what to do
};

// Opens each library (the loader's path, then the CUDA toolkit's library folder), asks its
// version and closes it again. Never throws; needs no GPU.
std::vector<RuntimeLibrary> probe_runtime_libraries();

}  // namespace aisp
