#include "aisp/check.hpp"

#include <fmt/format.h>

namespace aisp {

void throw_cuda_error(cudaError_t error, const char* expression, const char* file, int line) {
  throw CudaError(static_cast<int>(error),
                  fmt::format("{} failed at {}:{}: {} ({})", expression, file, line,
                              cudaGetErrorString(error), cudaGetErrorName(error)));
}

void throw_cublas_error(int status, const char* expression, const char* file, int line) {
  throw CudaError(status, fmt::format("{} failed at {}:{}: cuBLAS status {}", expression, file,
                                      line, status));
}

}  // namespace aisp
