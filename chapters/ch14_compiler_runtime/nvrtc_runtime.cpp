// NVRTC through dlopen: nvrtc.h gives the function types, dlsym the functions. The library stays
// open for the life of the process (one dlopen, never closed: kernels compiled from it may be
// loaded at any time).
#include "nvrtc_runtime.hpp"

#include <cuda_runtime_api.h>  // CUDART_VERSION: the NVRTC major version to look for first
#include <dlfcn.h>
#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace aisp::ch14 {
namespace {

struct NvrtcFunctions {
  decltype(&::nvrtcVersion) version = nullptr;
  decltype(&::nvrtcGetErrorString) error_string = nullptr;
  decltype(&::nvrtcCreateProgram) create_program = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&::nvrtcAddNameExpression) add_name_expression = nullptr;
  decltype(&::nvrtcCompileProgram) compile_program = nullptr;
  decltype(&::nvrtcGetProgramLogSize) program_log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) program_log = nullptr;
  decltype(&::nvrtcGetLoweredName) lowered_name = nullptr;
  decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) cubin = nullptr;
  std::string loaded_from;
  std::string unavailable_reason;  // non-empty when libnvrtc could not be loaded
};

std::vector<std::string> library_candidates() {
  const std::string versioned = "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000);
  std::vector<std::string> candidates = {versioned, "libnvrtc.so"};
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(variable); root != nullptr && *root != '\0')
      candidates.push_back(std::string(root) + "/lib64/" + versioned);
  candidates.push_back("/usr/local/cuda/lib64/" + versioned);
  candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so");
  return candidates;
}

template <class Function>
bool resolve(void* library, const char* symbol, Function& out, std::string& missing) {
  out = reinterpret_cast<Function>(dlsym(library, symbol));
  if (out == nullptr)
    missing += std::string(missing.empty() ? "" : ", ") + symbol;
  return out != nullptr;
}

NvrtcFunctions load_nvrtc() {
  NvrtcFunctions f;
  std::string tried;
  void* library = nullptr;
  for (const std::string& candidate : library_candidates()) {
    library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) {
      f.loaded_from = candidate;
      break;
    }
    const char* why = dlerror();
    tried += "\n  " + candidate + ": " + (why != nullptr ? why : "not found");
  }
  if (library == nullptr) {
    f.unavailable_reason =
        "NVRTC (the CUDA toolkit's runtime compiler, libnvrtc) is not available; tried:" + tried +
        "\nInstall the toolkit's NVRTC (the cuda-nvrtc package of CUDA " +
        std::to_string(CUDART_VERSION / 1000) +
        ") or point LD_LIBRARY_PATH, CUDA_HOME or CUDA_PATH at the toolkit that has it.";
    return f;
  }
  std::string missing;
  resolve(library, "nvrtcVersion", f.version, missing);
  resolve(library, "nvrtcGetErrorString", f.error_string, missing);
  resolve(library, "nvrtcCreateProgram", f.create_program, missing);
  resolve(library, "nvrtcDestroyProgram", f.destroy_program, missing);
  resolve(library, "nvrtcAddNameExpression", f.add_name_expression, missing);
  resolve(library, "nvrtcCompileProgram", f.compile_program, missing);
  resolve(library, "nvrtcGetProgramLogSize", f.program_log_size, missing);
  resolve(library, "nvrtcGetProgramLog", f.program_log, missing);
  resolve(library, "nvrtcGetLoweredName", f.lowered_name, missing);
  resolve(library, "nvrtcGetCUBINSize", f.cubin_size, missing);
  resolve(library, "nvrtcGetCUBIN", f.cubin, missing);
  if (!missing.empty())
    f.unavailable_reason = f.loaded_from + " lacks " + missing +
                           ": it is too old for cubin output (NVRTC >= 11.1 is needed); install "
                           "the NVRTC of the CUDA toolkit this suite was built with";
  return f;
}

const NvrtcFunctions& nvrtc() {
  static const NvrtcFunctions functions = load_nvrtc();
  if (!functions.unavailable_reason.empty())
    throw NvrtcUnavailable(functions.unavailable_reason);
  return functions;
}

// Destroys the program on every path out of compile_to_cubin.
struct ProgramGuard {
  const NvrtcFunctions& f;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program != nullptr)
      f.destroy_program(&program);
  }
};

}  // namespace

std::string nvrtc_architecture_option(int major, int minor) {
  return "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);
}

NvrtcCubin compile_to_cubin(const NvrtcCompileRequest& request) {
  const NvrtcFunctions& f = nvrtc();
  const auto started = std::chrono::steady_clock::now();
  auto fail = [&](const std::string& step, nvrtcResult result, const std::string& detail = "") {
    throw std::runtime_error("NVRTC (" + f.loaded_from + ") " + step + " failed for '" +
                             request.program_name + "': " + f.error_string(result) + detail);
  };

  ProgramGuard guard{f};
  nvrtcResult result = f.create_program(&guard.program, request.source.c_str(),
                                        request.program_name.c_str(), 0, nullptr, nullptr);
  if (result != NVRTC_SUCCESS)
    fail("nvrtcCreateProgram", result);
  result = f.add_name_expression(guard.program, request.name_expression.c_str());
  if (result != NVRTC_SUCCESS)
    fail("nvrtcAddNameExpression(" + request.name_expression + ")", result);

  std::vector<const char*> options;
  options.reserve(request.options.size());
  for (const std::string& option : request.options)
    options.push_back(option.c_str());
  const nvrtcResult compiled =
      f.compile_program(guard.program, static_cast<int>(options.size()), options.data());

  NvrtcCubin out;
  std::size_t log_size = 0;
  if (f.program_log_size(guard.program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    if (f.program_log(guard.program, out.log.data()) != NVRTC_SUCCESS)
      out.log.clear();
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n'))
      out.log.pop_back();
  }
  if (compiled != NVRTC_SUCCESS)
    fail("nvrtcCompileProgram", compiled, "\n" + out.log);

  const char* lowered = nullptr;
  result = f.lowered_name(guard.program, request.name_expression.c_str(), &lowered);
  if (result != NVRTC_SUCCESS || lowered == nullptr)
    fail("nvrtcGetLoweredName(" + request.name_expression + ")", result);
  out.lowered_name = lowered;  // owned by the program: copied before it is destroyed

  std::size_t cubin_size = 0;
  result = f.cubin_size(guard.program, &cubin_size);
  if (result != NVRTC_SUCCESS)
    fail("nvrtcGetCUBINSize", result);
  if (cubin_size == 0)
    throw std::runtime_error("NVRTC produced no cubin for '" + request.program_name +
                             "': give a real architecture (--gpu-architecture=sm_XX), not a "
                             "virtual one (compute_XX)");
  out.image.resize(cubin_size);
  result = f.cubin(guard.program, out.image.data());
  if (result != NVRTC_SUCCESS)
    fail("nvrtcGetCUBIN", result);

  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  int major = 0, minor = 0;
  if (f.version(&major, &minor) == NVRTC_SUCCESS)
    out.nvrtc_version = std::to_string(major) + "." + std::to_string(minor);
  return out;
}

}  // namespace aisp::ch14
