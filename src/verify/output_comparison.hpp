// Element-by-element checks of one output: every element written (no poison left), no NaN/Inf,
// and optimized within tolerance of baseline. Integers compare exactly unless a tolerance says
// otherwise. The numbers in each outcome's detail are the ones compared.
#pragma once

#include <cuda_runtime_api.h>

#include <span>
#include <string>

#include "aisp/benchmark.hpp"
#include "aisp/result.hpp"

namespace aisp {

// Elements still holding the poison pattern written before the verification run.
std::size_t count_unwritten(DType dtype, std::span<const unsigned char> bytes);

// Integer outputs: elements holding kIntegerPoisonByte in `bytes` and
// kIntegerPoisonAlternateByte in `alternate` (the same variant, same inputs, run again under the
// other poison). A written element is equal in both, so this count is exact for any values.
std::size_t count_unwritten_integers(DType dtype, std::span<const unsigned char> bytes,
                                     std::span<const unsigned char> alternate);

// NaN and Inf elements (always 0 for integer dtypes).
std::size_t count_non_finite(DType dtype, std::span<const unsigned char> bytes);

struct ToleranceReport {
  bool passed = false;
  std::size_t mismatches = 0;
  double max_abs_error = 0, max_rel_error = 0;  // over the elements whose error is finite
  std::size_t first_mismatch = 0;
  double first_expected = 0, first_actual = 0;
  // NaN/Inf elements: a NaN error is a mismatch but has no size, so the maxima above leave it
  // out and describe() names these counts instead of reporting "max abs error 0".
  std::size_t non_finite_expected = 0, non_finite_actual = 0;
};

// How non-finite elements compare. `mismatch` (verification, timed calls): a NaN or Inf is always
// a mismatch, so an unwritten output (the harness's NaN poison) never passes. `same_agrees`
// (varied inputs: offset and wide-range values can overflow the problem itself): the same Inf,
// or NaN against NaN, in both outputs agrees; any other non-finite element is a mismatch.
enum class NonFiniteRule { mismatch, same_agrees };

ToleranceReport compare_within_tolerance(DType dtype, std::span<const unsigned char> expected,
                                         std::span<const unsigned char> actual,
                                         const Tolerance& tolerance,
                                         NonFiniteRule non_finite = NonFiniteRule::mismatch);

std::string describe(const ToleranceReport& report, const Tolerance& tolerance,
                     const std::string& output_name, std::size_t count);

// Compares two tensors of one dtype and count where they live: on the GPU when both are device
// or managed memory (one pass, nothing copied to the host but the tally; verify/
// device_comparison.cu), on the host otherwise (in place for host and pinned memory). The
// checks of timed calls and of varied inputs compare whole outputs this way at a fixed small
// cost per pair.
ToleranceReport compare_tensors(const Tensor& expected, const Tensor& actual,
                                const Tolerance& tolerance, cudaStream_t stream,
                                NonFiniteRule non_finite = NonFiniteRule::mismatch);

// The device pass behind compare_tensors: `expected` and `actual` hold `count` elements of
// `dtype` in device (or managed) memory. Enqueued on `stream`, which is synchronized.
ToleranceReport compare_on_device(DType dtype, const void* expected, const void* actual,
                                  std::size_t count, const Tolerance& tolerance,
                                  cudaStream_t stream,
                                  NonFiniteRule non_finite = NonFiniteRule::mismatch);

}  // namespace aisp
