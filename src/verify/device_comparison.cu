// compare_on_device: output_comparison.cpp's element rule, |actual - expected| <= atol +
// rtol * |expected| (NaN never passes), in one grid-stride pass on the GPU. Each thread tallies
// its elements, a warp combines its threads' tallies with shuffles, and one lane per warp adds
// them into a tally in device memory: counts by atomicAdd, the maxima by atomicMax on the bits
// of non-negative doubles (which order like unsigned integers), the first mismatch by atomicMin.
// Only the tally and the first mismatch's two elements come back to the host.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "aisp/check.hpp"
#include "core/element_decoding.hpp"
#include "verify/output_comparison.hpp"

namespace aisp {
namespace {

struct DeviceTally {
  unsigned long long mismatches;
  unsigned long long non_finite_expected;
  unsigned long long non_finite_actual;
  unsigned long long first_mismatch;  // ULLONG_MAX when none
  unsigned long long max_abs_bits;    // bits of a non-negative double
  unsigned long long max_rel_bits;
};

template <class T>
__device__ double as_double(T value) {
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<double>(__half2float(value));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<double>(__bfloat162float(value));
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>)
    return static_cast<double>(static_cast<float>(value));
  else
    return static_cast<double>(value);
}

__device__ unsigned long long bits_of(double value) {
  return static_cast<unsigned long long>(__double_as_longlong(value));
}

template <class T>
__global__ void compare_elements(const T* __restrict__ expected, const T* __restrict__ actual,
                                 std::size_t count, double rtol, double atol, bool same_agrees,
                                 DeviceTally* tally) {
  unsigned long long mismatches = 0, non_finite_expected = 0, non_finite_actual = 0;
  unsigned long long first = ~0ull;
  double max_abs = 0, max_rel = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const double e = as_double(expected[i]);
    const double a = as_double(actual[i]);
    const double abs_error = fabs(a - e);
    // NaN compares false everywhere: `!(x <= bound)` counts it as a mismatch.
    // With same_agrees (varied inputs), the same Inf, or NaN against NaN, agrees.
    const bool same_non_finite = same_agrees && !isfinite(e) && (isnan(e) ? isnan(a) : a == e);
    const bool ok = abs_error <= atol + rtol * fabs(e) || same_non_finite;
    if (isfinite(abs_error)) {
      max_abs = fmax(max_abs, abs_error);
      if (e != 0)
        max_rel = fmax(max_rel, abs_error / fabs(e));
    }
    non_finite_expected += isfinite(e) ? 0 : 1;
    non_finite_actual += isfinite(a) ? 0 : 1;
    if (!ok) {
      ++mismatches;
      first = first < i ? first : static_cast<unsigned long long>(i);
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    mismatches += __shfl_down_sync(0xFFFFFFFFu, mismatches, offset);
    non_finite_expected += __shfl_down_sync(0xFFFFFFFFu, non_finite_expected, offset);
    non_finite_actual += __shfl_down_sync(0xFFFFFFFFu, non_finite_actual, offset);
    const unsigned long long other_first = __shfl_down_sync(0xFFFFFFFFu, first, offset);
    first = first < other_first ? first : other_first;
    max_abs = fmax(max_abs, __shfl_down_sync(0xFFFFFFFFu, max_abs, offset));
    max_rel = fmax(max_rel, __shfl_down_sync(0xFFFFFFFFu, max_rel, offset));
  }
  if ((threadIdx.x & 31) != 0)
    return;
  if (mismatches > 0) {
    atomicAdd(&tally->mismatches, mismatches);
    atomicMin(&tally->first_mismatch, first);
  }
  if (non_finite_expected > 0)
    atomicAdd(&tally->non_finite_expected, non_finite_expected);
  if (non_finite_actual > 0)
    atomicAdd(&tally->non_finite_actual, non_finite_actual);
  if (max_abs > 0)
    atomicMax(&tally->max_abs_bits, bits_of(max_abs));
  if (max_rel > 0)
    atomicMax(&tally->max_rel_bits, bits_of(max_rel));
}

// Calls fn(T{}) with T the storage type of the dtype.
template <class Fn>
void with_storage_type(DType dtype, Fn fn) {
  switch (dtype) {
  case DType::f64:
    fn(double{});
    break;
  case DType::f32:
    fn(float{});
    break;
  case DType::f16:
    fn(__half{});
    break;
  case DType::bf16:
    fn(__nv_bfloat16{});
    break;
  case DType::fp8_e4m3:
    fn(__nv_fp8_e4m3{});
    break;
  case DType::fp8_e5m2:
    fn(__nv_fp8_e5m2{});
    break;
  case DType::i64:
    fn(std::int64_t{});
    break;
  case DType::i32:
    fn(std::int32_t{});
    break;
  case DType::i8:
    fn(std::int8_t{});
    break;
  case DType::u64:
    fn(std::uint64_t{});
    break;
  case DType::u32:
    fn(std::uint32_t{});
    break;
  case DType::u8:
    fn(std::uint8_t{});
    break;
  }
}

// One tally per process, allocated on first use and never freed (the worker ends with its pair).
DeviceTally* device_tally() {
  static DeviceTally* tally = [] {
    DeviceTally* p = nullptr;
    AISP_CUDA_CHECK(cudaMalloc(&p, sizeof(DeviceTally)));
    return p;
  }();
  return tally;
}

double double_of_bits(unsigned long long bits) {
  double value = 0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace

ToleranceReport compare_on_device(DType dtype, const void* expected, const void* actual,
                                  std::size_t count, const Tolerance& tolerance,
                                  cudaStream_t stream, NonFiniteRule non_finite) {
  ToleranceReport report;
  DeviceTally* tally = device_tally();
  DeviceTally start{};
  start.first_mismatch = ~0ull;
  AISP_CUDA_CHECK(cudaMemcpyAsync(tally, &start, sizeof(start), cudaMemcpyHostToDevice, stream));
  if (count > 0) {
    int device = 0, sms = 0;
    AISP_CUDA_CHECK(cudaGetDevice(&device));
    AISP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    constexpr int kThreads = 256;
    const std::size_t wanted = (count + kThreads - 1) / kThreads;
    const int blocks = static_cast<int>(std::clamp<std::size_t>(wanted, 1, std::size_t{8} * sms));
    with_storage_type(dtype, [&](auto tag) {
      using T = decltype(tag);
      compare_elements<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(expected),
                                                           static_cast<const T*>(actual), count,
                                                           tolerance.rtol, tolerance.atol,
                                                           non_finite == NonFiniteRule::same_agrees,
                                                           tally);
      AISP_CHECK_LAUNCH();
    });
  }
  DeviceTally result{};
  AISP_CUDA_CHECK(cudaMemcpyAsync(&result, tally, sizeof(result), cudaMemcpyDeviceToHost, stream));
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  report.mismatches = result.mismatches;
  report.non_finite_expected = result.non_finite_expected;
  report.non_finite_actual = result.non_finite_actual;
  report.max_abs_error = double_of_bits(result.max_abs_bits);
  report.max_rel_error = double_of_bits(result.max_rel_bits);
  if (report.mismatches > 0 && result.first_mismatch < count) {
    const std::size_t width = dtype_size(dtype);
    unsigned char e[8] = {}, a[8] = {};
    const std::size_t offset = static_cast<std::size_t>(result.first_mismatch) * width;
    AISP_CUDA_CHECK(cudaMemcpyAsync(e, static_cast<const unsigned char*>(expected) + offset, width,
                                    cudaMemcpyDefault, stream));
    AISP_CUDA_CHECK(cudaMemcpyAsync(a, static_cast<const unsigned char*>(actual) + offset, width,
                                    cudaMemcpyDefault, stream));
    AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
    report.first_mismatch = static_cast<std::size_t>(result.first_mismatch);
    report.first_expected = decode_element(dtype, e, 0);
    report.first_actual = decode_element(dtype, a, 0);
  }
  report.passed = report.mismatches == 0 && count > 0;
  return report;
}

}  // namespace aisp
