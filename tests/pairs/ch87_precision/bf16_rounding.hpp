// Test-only CPU problem of the precision pairs (tests/cli/test_precision.sh): y = 2x + 1 over
// 2^16 floats with its float64 reference (tests/support/cpu_affine_problem.hpp), and variants
// that round y to bf16 (7 stored mantissa bits, round to nearest even): a relative error of at
// most 2^-8 (3.9e-3) per element; over these outputs the relative RMS error is 1.7e-3. They
// differ only in what they declare about it.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {

using PrecisionProblem = CpuAffine<std::size_t{1} << 16>;

inline float round_to_bf16(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest, ties to even
  bits &= 0xFFFF0000u;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The affine map with its result rounded to bf16, and the tolerance that rounding needs against
// the f32 baseline (within_tolerance still applies to a lower-precision variant).
struct Bf16RoundedAffine : PrecisionProblem {
  void run(Context&) override {
    affine(0, kCount);
    float* out = y.as<float>();
    for (std::size_t i = 0; i < kCount; ++i) out[i] = round_to_bf16(out[i]);
  }
  std::optional<Tolerance> tolerance() const override {
    return Tolerance{8e-3, 1e-6,
                     "rounding to bf16 (7 stored mantissa bits) changes each element by at most "
                     "2^-8 (3.9e-3) of its value; 8e-3 is twice that"};
  }
};

// Declares the bf16 rounding with `bound` as its relative RMS bound.
inline LowerPrecision bf16_declaration(double bound) {
  return LowerPrecision{"bf16 output (7 stored mantissa bits, round to nearest)", bound,
                        "rounding to bf16 gives each element a relative error of at most 2^-8 "
                        "(3.9e-3); over y = 2x + 1 with x uniform in [-1, 1) the relative RMS "
                        "error is 1.7e-3 (measured by this pair)"};
}

}  // namespace aisp::test_pairs
