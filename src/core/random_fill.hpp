// Deterministic uniform fills for any dtype and memory kind: the values depend only on the key
// and the element index, so host and device fills of the same key agree bit for bit.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "aisp/dtype.hpp"
#include "core/host_bytes.hpp"

namespace aisp::detail {

// The value distributions of ctx.fill_uniform (docs/integrity.md, "Varied inputs"). Setup asks
// for [lo, hi); verification also tries that range moved away from zero by four times its width
// (`offset`) and each value scaled by 2^u, u uniform in [-E, E] (`wide_range`), where the dtype
// can hold them (distribution_allowed). Integer fills are never changed.
enum class InputDistribution { uniform, offset, wide_range };
std::string_view input_distribution_name(InputDistribution distribution);
// Whether a floating dtype can represent the distribution usefully: fp8 formats (2-3 mantissa
// bits, max 448/57344) cannot; the others can.
bool distribution_allowed(DType dtype, InputDistribution distribution);
// E of wide_range for the dtype: 12 (f64, f32, bf16), 4 (f16: products of 2^4 values summed over
// thousands of terms stay inside its 65504), 0 where not allowed.
double wide_range_exponent(DType dtype);

// Device (or managed) memory: enqueued on `stream`, then synchronized.
void fill_uniform_device(DType dtype, void* data, std::size_t count, std::uint64_t key, double lo,
                         double hi, cudaStream_t stream,
                         InputDistribution distribution = InputDistribution::uniform);
// Host memory: up to `threads` host threads.
void fill_uniform_host(DType dtype, void* data, std::size_t count, std::uint64_t key, double lo,
                       double hi, int threads,
                       InputDistribution distribution = InputDistribution::uniform);
void fill_int_device(DType dtype, void* data, std::size_t count, std::uint64_t key,
                     std::int64_t lo, std::int64_t hi, cudaStream_t stream);
void fill_int_host(DType dtype, void* data, std::size_t count, std::uint64_t key, std::int64_t lo,
                   std::int64_t hi, int threads);

std::uint64_t fill_key(std::uint64_t seed, const char* name, std::size_t name_length);

// The bytes the fills above write at `indices` only (dtype_size each, in order), computed on the
// host: what a whole fill of the same key would hold there. For changing a few elements of an
// input in place (the timed-call checks) and for confirming that a tensor still holds its fill.
HostBytes uniform_values_at(DType dtype, std::uint64_t key, double lo, double hi,
                            InputDistribution distribution, const std::vector<std::size_t>& indices);
HostBytes int_values_at(DType dtype, std::uint64_t key, std::int64_t lo, std::int64_t hi,
                        const std::vector<std::size_t>& indices);

}  // namespace aisp::detail
