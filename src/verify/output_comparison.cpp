#include "verify/output_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "aisp/check.hpp"
#include "core/context_state.hpp"
#include "core/element_decoding.hpp"

namespace aisp {
namespace {

// Outputs reach 2^28 elements: the checks run in parallel chunks over the host's cores, and
// read f32/f64 directly instead of through the generic decoder.
template <class Partial, class ChunkFn, class Merge>
Partial parallel_chunks(std::size_t count, ChunkFn chunk_fn, Merge merge) {
  constexpr std::size_t kMinChunk = std::size_t{1} << 20;
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::clamp<std::size_t>(count / kMinChunk, 1, hw);
  std::vector<Partial> partials(workers);
  const std::size_t chunk = (count + workers - 1) / workers;
  std::vector<std::thread> pool;
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t begin = std::min(count, w * chunk), end = std::min(count, begin + chunk);
    if (workers == 1) partials[w] = chunk_fn(begin, end);
    else pool.emplace_back([&, w, begin, end] { partials[w] = chunk_fn(begin, end); });
  }
  for (auto& t : pool) t.join();
  Partial total = partials.front();
  for (std::size_t w = 1; w < workers; ++w) total = merge(total, partials[w]);
  return total;
}

template <class Fn> void with_element_reader(DType dtype, const unsigned char* bytes, Fn fn) {
  if (dtype == DType::f32) {
    fn([bytes](std::size_t i) {
      float v;
      std::memcpy(&v, bytes + i * sizeof(float), sizeof(v));
      return static_cast<double>(v);
    });
  } else if (dtype == DType::f64) {
    fn([bytes](std::size_t i) {
      double v;
      std::memcpy(&v, bytes + i * sizeof(double), sizeof(v));
      return v;
    });
  } else {
    fn([dtype, bytes](std::size_t i) { return decode_element(dtype, bytes, i); });
  }
}

}  // namespace

std::size_t count_unwritten(DType dtype, std::span<const unsigned char> bytes) {
  const std::size_t width = dtype_size(dtype);
  const unsigned char poison = dtype_is_floating(dtype) ? kFloatPoisonByte : kIntegerPoisonByte;
  const std::size_t count = bytes.size() / width;
  return parallel_chunks<std::size_t>(
      count,
      [&](std::size_t begin, std::size_t end) {
        std::size_t unwritten = 0;
        for (std::size_t i = begin; i < end; ++i) {
          const unsigned char* e = bytes.data() + i * width;
          bool all_poison = true;
          for (std::size_t b = 0; b < width && all_poison; ++b) all_poison = e[b] == poison;
          unwritten += all_poison ? 1 : 0;
        }
        return unwritten;
      },
      [](std::size_t a, std::size_t b) { return a + b; });
}

std::size_t count_unwritten_integers(DType dtype, std::span<const unsigned char> bytes,
                                     std::span<const unsigned char> alternate) {
  const std::size_t width = dtype_size(dtype);
  const std::size_t count = std::min(bytes.size(), alternate.size()) / width;
  return parallel_chunks<std::size_t>(
      count,
      [&](std::size_t begin, std::size_t end) {
        std::size_t unwritten = 0;
        for (std::size_t i = begin; i < end; ++i) {
          bool poisoned_in_both = true;
          for (std::size_t b = 0; b < width && poisoned_in_both; ++b)
            poisoned_in_both = bytes[i * width + b] == kIntegerPoisonByte &&
                               alternate[i * width + b] == kIntegerPoisonAlternateByte;
          unwritten += poisoned_in_both ? 1 : 0;
        }
        return unwritten;
      },
      [](std::size_t a, std::size_t b) { return a + b; });
}

std::size_t count_non_finite(DType dtype, std::span<const unsigned char> bytes) {
  if (!dtype_is_floating(dtype)) return 0;
  const std::size_t count = bytes.size() / dtype_size(dtype);
  std::size_t total = 0;
  with_element_reader(dtype, bytes.data(), [&](auto read) {
    total = parallel_chunks<std::size_t>(
        count,
        [&](std::size_t begin, std::size_t end) {
          std::size_t non_finite = 0;
          for (std::size_t i = begin; i < end; ++i) non_finite += std::isfinite(read(i)) ? 0 : 1;
          return non_finite;
        },
        [](std::size_t a, std::size_t b) { return a + b; });
  });
  return total;
}

ToleranceReport compare_within_tolerance(DType dtype, std::span<const unsigned char> expected,
                                         std::span<const unsigned char> actual,
                                         const Tolerance& tolerance, NonFiniteRule non_finite) {
  const bool same_agrees = non_finite == NonFiniteRule::same_agrees;
  const std::size_t count = expected.size() / dtype_size(dtype);
  ToleranceReport report;
  if (actual.size() != expected.size()) {
    report.mismatches = count;
    return report;  // different sizes never compare equal (and are never read past their end)
  }
  with_element_reader(dtype, expected.data(), [&](auto read_expected) {
    with_element_reader(dtype, actual.data(), [&](auto read_actual) {
      report = parallel_chunks<ToleranceReport>(
          count,
          [&](std::size_t begin, std::size_t end) {
            ToleranceReport part;
            for (std::size_t i = begin; i < end; ++i) {
              const double e = read_expected(i);
              const double a = read_actual(i);
              const double abs_error = std::fabs(a - e);
              // NaN compares false everywhere: `!(x <= bound)` counts it as a mismatch.
              const bool same_non_finite =
                  same_agrees && !std::isfinite(e) && (std::isnan(e) ? std::isnan(a) : a == e);
              const bool ok =
                  abs_error <= tolerance.atol + tolerance.rtol * std::fabs(e) || same_non_finite;
              if (std::isfinite(abs_error)) {
                part.max_abs_error = std::max(part.max_abs_error, abs_error);
                if (e != 0) part.max_rel_error = std::max(part.max_rel_error, abs_error / std::fabs(e));
              }
              part.non_finite_expected += std::isfinite(e) ? 0 : 1;
              part.non_finite_actual += std::isfinite(a) ? 0 : 1;
              if (!ok) {
                if (part.mismatches == 0) {
                  part.first_mismatch = i;
                  part.first_expected = e;
                  part.first_actual = a;
                }
                ++part.mismatches;
              }
            }
            return part;
          },
          [](ToleranceReport a, const ToleranceReport& b) {
            // Chunks are merged in index order, so the first mismatch stays the first.
            if (a.mismatches == 0 && b.mismatches > 0) {
              a.first_mismatch = b.first_mismatch;
              a.first_expected = b.first_expected;
              a.first_actual = b.first_actual;
            }
            a.mismatches += b.mismatches;
            a.non_finite_expected += b.non_finite_expected;
            a.non_finite_actual += b.non_finite_actual;
            a.max_abs_error = std::max(a.max_abs_error, b.max_abs_error);
            a.max_rel_error = std::max(a.max_rel_error, b.max_rel_error);
            return a;
          });
    });
  });
  report.passed = report.mismatches == 0 && count > 0;
  return report;
}

std::string describe(const ToleranceReport& report, const Tolerance& tolerance,
                     const std::string& output_name, std::size_t count) {
  std::string text = fmt::format("{}: {} of {} elements outside rtol={:g} atol={:g}; ", output_name,
                                 report.mismatches, count, tolerance.rtol, tolerance.atol);
  // A NaN or Inf error has no size: say so rather than print the finite elements' maximum alone
  // ("max abs error 0" for an output that is all NaN).
  const bool non_finite = report.non_finite_actual > 0 || report.non_finite_expected > 0;
  if (non_finite)
    text += fmt::format("max abs error NaN ({} NaN/Inf in the optimized output, {} in the "
                        "baseline's; {:.3g} over the finite errors), max rel error {:.3g}",
                        report.non_finite_actual, report.non_finite_expected,
                        report.max_abs_error, report.max_rel_error);
  else
    text += fmt::format("max abs error {:.3g}, max rel error {:.3g}", report.max_abs_error,
                        report.max_rel_error);
  if (report.mismatches > 0)
    text += fmt::format("; first at index {}: baseline {:.9g}, optimized {:.9g}",
                        report.first_mismatch, report.first_expected, report.first_actual);
  return text;
}

}  // namespace aisp

namespace aisp {

ToleranceReport compare_tensors(const Tensor& expected, const Tensor& actual,
                                const Tolerance& tolerance, cudaStream_t stream,
                                NonFiniteRule non_finite) {
  if (expected.dtype() != actual.dtype() || expected.count() != actual.count()) {
    ToleranceReport report;
    report.mismatches = expected.count();
    return report;
  }
  const auto on_device = [](const Tensor& t) {
    return t.memory() == Memory::device || t.memory() == Memory::managed;
  };
  // On the GPU when both live on the stream's GPU; a multi-GPU run's tensor on another GPU is
  // read back (read_tensor_bytes reads it there) and compared on the host like any output.
  if (on_device(expected) && on_device(actual) && on_stream_device(expected, stream) &&
      on_stream_device(actual, stream))
    return compare_on_device(expected.dtype(), expected.data(), actual.data(), expected.count(),
                             tolerance, stream, non_finite);
  if (stream != nullptr && (on_device(expected) || on_device(actual)))
    return compare_within_tolerance(expected.dtype(), read_tensor_bytes(expected, stream),
                                    read_tensor_bytes(actual, stream), tolerance, non_finite);
  if (stream != nullptr) AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return compare_within_tolerance(
      expected.dtype(), {static_cast<const unsigned char*>(expected.data()), expected.bytes()},
      {static_cast<const unsigned char*>(actual.data()), actual.bytes()}, tolerance, non_finite);
}

}  // namespace aisp
