// Checked CUDA and cuBLAS calls. Every call is checked and every launch is followed by
// AISP_CHECK_LAUNCH(); a failure throws, and the harness fails the pair with the message.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace aisp {

// A CUDA runtime or library call failed. `code` is the cudaError_t (or library status).
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t error, const char* expression, const char* file,
                                   int line);
[[noreturn]] void throw_cublas_error(int status, const char* expression, const char* file,
                                     int line);

}  // namespace aisp

#define AISP_CUDA_CHECK(expression)                                           \
  do {                                                                        \
    const cudaError_t aisp_status_ = (expression);                            \
    if (aisp_status_ != cudaSuccess)                                          \
      ::aisp::throw_cuda_error(aisp_status_, #expression, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: catches bad configurations (too much shared memory, too many
// threads) at once instead of timing a launch that never ran.
#define AISP_CHECK_LAUNCH() AISP_CUDA_CHECK(cudaGetLastError())

#define AISP_CUBLAS_CHECK(expression)                                            \
  do {                                                                           \
    const int aisp_status_ = static_cast<int>(expression);                       \
    if (aisp_status_ != 0)                                                       \
      ::aisp::throw_cublas_error(aisp_status_, #expression, __FILE__, __LINE__); \
  } while (0)
