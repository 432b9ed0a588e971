// Runtime compilation with NVRTC, loaded at run time: libnvrtc is opened with dlopen on first use
// (the suite does not link it), a source string is compiled to a cubin for one GPU, and the
// caller loads that cubin with the CUDA runtime's library API (cudaLibraryLoadData,
// cudaLibraryGetKernel, cudaLaunchKernel), so no libcuda link is needed either.
//
// Where libnvrtc cannot be found, compile_to_cubin throws NvrtcUnavailable naming every path it
// tried and what to install; a variant that needs NVRTC fails with that message.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <aisp/benchmark.hpp>

namespace aisp::ch14 {

// NVRTC is not installed here: a skip with this reason (aisp::Unavailable), not a failure.
class NvrtcUnavailable : public aisp::Unavailable {
 public:
  using aisp::Unavailable::Unavailable;
};

struct NvrtcCompileRequest {
  std::string source;                // the whole translation unit
  std::string program_name;          // shown in NVRTC's messages
  std::string name_expression;       // e.g. "my_kernel<4096>": the kernel to look up afterwards
  std::vector<std::string> options;  // e.g. "--gpu-architecture=sm_90"
};

struct NvrtcCubin {
  std::vector<char> image;    // the cubin, for cudaLibraryLoadData
  std::string lowered_name;   // the mangled name of name_expression, for cudaLibraryGetKernel
  std::string nvrtc_version;  // "13.0"
  std::string log;            // NVRTC's compile log (warnings), may be empty
  double compile_ms = 0;      // nvrtcCreateProgram through nvrtcGetCUBIN, host clock
};

// Compiles the request; throws NvrtcUnavailable when libnvrtc cannot be loaded and
// std::runtime_error (with NVRTC's log) when the compilation fails.
NvrtcCubin compile_to_cubin(const NvrtcCompileRequest& request);

// "--gpu-architecture=sm_<major><minor>" for the device's compute capability: a cubin for exactly
// this GPU.
std::string nvrtc_architecture_option(int major, int minor);

}  // namespace aisp::ch14
