#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <thread>
#include <type_traits>
#include <vector>

#include "aisp/check.hpp"
#include "core/deterministic_random.cuh"
#include "core/random_fill.hpp"

namespace aisp::detail {
namespace {

template <class T> __host__ __device__ T convert_value(double v) {
  if constexpr (std::is_same_v<T, __half>) return __double2half(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(v);
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) return __nv_fp8_e4m3(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_fp8_e5m2>) return __nv_fp8_e5m2(static_cast<float>(v));
  else return static_cast<T>(v);
}

// A second random stream for wide_range's exponents, independent of the values' stream.
constexpr std::uint64_t kExponentStream = 0xE4B0A11D5C3F9E27ull;

// The value at index i: uniform in [lo, lo + span), then moved (offset) or scaled (wide_range).
// `exponent` is wide_range_exponent of the dtype.
template <class T>
__host__ __device__ T uniform_value(std::uint64_t key, std::size_t i, double lo, double span,
                                    InputDistribution distribution, double exponent) {
  double v = lo + span * unit_uniform(key, i);
  if (distribution == InputDistribution::offset) {
    v += 4.0 * span;
  } else if (distribution == InputDistribution::wide_range) {
    v *= exp2(exponent * (2.0 * unit_uniform(key ^ kExponentStream, i) - 1.0));
  }
  return convert_value<T>(v);
}

template <class T>
__host__ __device__ T int_value(std::uint64_t key, std::size_t i, std::int64_t lo,
                                std::uint64_t range) {
  return static_cast<T>(lo + static_cast<std::int64_t>(mix64(key ^ mix64(i)) % range));
}

template <class T>
__global__ void fill_uniform_kernel(T* data, std::size_t count, std::uint64_t key, double lo,
                                    double span, InputDistribution distribution, double exponent) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    data[i] = uniform_value<T>(key, i, lo, span, distribution, exponent);
}

template <class T>
__global__ void fill_int_kernel(T* data, std::size_t count, std::uint64_t key, std::int64_t lo,
                                std::uint64_t range) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    data[i] = int_value<T>(key, i, lo, range);
}

int grid_for(std::size_t count) {
  return static_cast<int>(std::clamp<std::size_t>((count + 255) / 256, 1, 16384));
}

// Runs body(begin, end) over [0, count) on up to `threads` host threads.
template <class Body> void parallel_for(std::size_t count, int threads, Body body) {
  const std::size_t workers = std::clamp<std::size_t>(count / (std::size_t{1} << 20), 1,
                                                      static_cast<std::size_t>(std::max(threads, 1)));
  if (workers == 1) {
    body(std::size_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t chunk = (count + workers - 1) / workers;
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t begin = w * chunk, end = std::min(count, begin + chunk);
    if (begin < end) pool.emplace_back([=] { body(begin, end); });
  }
  for (auto& t : pool) t.join();
}

// Calls fn(T{}) with T the storage type of a floating dtype.
template <class Fn> void with_float_type(DType dtype, Fn fn) {
  switch (dtype) {
  case DType::f64: fn(double{}); break;
  case DType::f32: fn(float{}); break;
  case DType::f16: fn(__half{}); break;
  case DType::bf16: fn(__nv_bfloat16{}); break;
  case DType::fp8_e4m3: fn(__nv_fp8_e4m3{}); break;
  case DType::fp8_e5m2: fn(__nv_fp8_e5m2{}); break;
  default: break;
  }
}

template <class Fn> void with_int_type(DType dtype, Fn fn) {
  switch (dtype) {
  case DType::i64: fn(std::int64_t{}); break;
  case DType::i32: fn(std::int32_t{}); break;
  case DType::i8: fn(std::int8_t{}); break;
  case DType::u64: fn(std::uint64_t{}); break;
  case DType::u32: fn(std::uint32_t{}); break;
  case DType::u8: fn(std::uint8_t{}); break;
  default: break;
  }
}

}  // namespace

std::string_view input_distribution_name(InputDistribution distribution) {
  switch (distribution) {
  case InputDistribution::uniform: return "uniform";
  case InputDistribution::offset: return "offset";
  case InputDistribution::wide_range: return "wide_range";
  }
  return "uniform";
}

bool distribution_allowed(DType dtype, InputDistribution distribution) {
  if (distribution == InputDistribution::uniform) return true;
  return dtype == DType::f64 || dtype == DType::f32 || dtype == DType::bf16 || dtype == DType::f16;
}

double wide_range_exponent(DType dtype) {
  if (!distribution_allowed(dtype, InputDistribution::wide_range)) return 0;
  return dtype == DType::f16 ? 4.0 : 12.0;
}

std::uint64_t fill_key(std::uint64_t seed, const char* name, std::size_t name_length) {
  return mix64(seed) ^ name_hash(name, name_length);
}

void fill_uniform_device(DType dtype, void* data, std::size_t count, std::uint64_t key, double lo,
                         double hi, cudaStream_t stream, InputDistribution distribution) {
  if (!distribution_allowed(dtype, distribution)) distribution = InputDistribution::uniform;
  const double exponent = wide_range_exponent(dtype);
  with_float_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    fill_uniform_kernel<T><<<grid_for(count), 256, 0, stream>>>(static_cast<T*>(data), count, key,
                                                                 lo, hi - lo, distribution, exponent);
    AISP_CHECK_LAUNCH();
  });
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void fill_uniform_host(DType dtype, void* data, std::size_t count, std::uint64_t key, double lo,
                       double hi, int threads, InputDistribution distribution) {
  if (!distribution_allowed(dtype, distribution)) distribution = InputDistribution::uniform;
  const double exponent = wide_range_exponent(dtype);
  with_float_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = static_cast<T*>(data);
    const double span = hi - lo;
    parallel_for(count, threads, [=](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        out[i] = uniform_value<T>(key, i, lo, span, distribution, exponent);
    });
  });
}

HostBytes uniform_values_at(DType dtype, std::uint64_t key, double lo, double hi,
                            InputDistribution distribution,
                            const std::vector<std::size_t>& indices) {
  if (!distribution_allowed(dtype, distribution)) distribution = InputDistribution::uniform;
  const double exponent = wide_range_exponent(dtype);
  HostBytes bytes(indices.size() * dtype_size(dtype));
  with_float_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = reinterpret_cast<T*>(bytes.data());
    for (std::size_t k = 0; k < indices.size(); ++k)
      out[k] = uniform_value<T>(key, indices[k], lo, hi - lo, distribution, exponent);
  });
  return bytes;
}

HostBytes int_values_at(DType dtype, std::uint64_t key, std::int64_t lo, std::int64_t hi,
                        const std::vector<std::size_t>& indices) {
  const std::uint64_t range = static_cast<std::uint64_t>(hi - lo) + 1;
  HostBytes bytes(indices.size() * dtype_size(dtype));
  with_int_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = reinterpret_cast<T*>(bytes.data());
    for (std::size_t k = 0; k < indices.size(); ++k) out[k] = int_value<T>(key, indices[k], lo, range);
  });
  return bytes;
}

void fill_int_device(DType dtype, void* data, std::size_t count, std::uint64_t key,
                     std::int64_t lo, std::int64_t hi, cudaStream_t stream) {
  const std::uint64_t range = static_cast<std::uint64_t>(hi - lo) + 1;
  with_int_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    fill_int_kernel<T><<<grid_for(count), 256, 0, stream>>>(static_cast<T*>(data), count, key, lo,
                                                             range);
    AISP_CHECK_LAUNCH();
  });
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void fill_int_host(DType dtype, void* data, std::size_t count, std::uint64_t key, std::int64_t lo,
                   std::int64_t hi, int threads) {
  const std::uint64_t range = static_cast<std::uint64_t>(hi - lo) + 1;
  with_int_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* out = static_cast<T*>(data);
    parallel_for(count, threads, [=](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) out[i] = int_value<T>(key, i, lo, range);
    });
  });
}

}  // namespace aisp::detail
