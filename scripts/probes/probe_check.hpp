// What every probe in this folder does with a CUDA runtime call: report the file, the line, the
// call and the error, then exit 1 (a probe is a one-shot program; there is nothing to recover).
// Include it as "probe_check.hpp" (the probes' own folder comes first on the include path).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const cudaError_t probe_error_ = (call);                                                       \
    if (probe_error_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,                            \
                   cudaGetErrorString(probe_error_));                                              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
