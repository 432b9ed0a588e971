// Checked timed calls (docs/integrity.md, "Timed calls are checked"): verification calls are
// observable (their outputs are poisoned, their seeds differ from timing's), so the calls that
// are timed are checked too, in a way run() cannot tell from an unchecked one.
//
// During sampling, each sample of the optimized variant is checked with probability 1/(k+1) (k
// its index from 0; drawn from a seed the variant cannot read), so the last checked sample is a
// uniform pick among all the samples and about ln(k) of them are checked in all. Before a
// checked sample, where the pair's inputs are all fills of the harness (ctx.fill_uniform*), a
// few short runs of elements of every input (1/1024 of it) take new values in place, in both
// variants alike: a variant replaying a cached output whenever a cheap fingerprint of its inputs
// matches replays a stale one. The sample is timed as usual; then the baseline is run once on
// the same inputs (untimed) and every output the optimized sample wrote is compared with the
// baseline's, whole, where it lives (on the GPU for device memory).
//
// After the samples, every input of every instance is refreshed in place from a new seed (the
// seed ctx.seed() reports is unchanged), both variants are run once more exactly as they were
// timed (graph replay included) and compared the same way; on the GPU that call is traced with
// CUPTI (measure/kernel_trace.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aisp/benchmark.hpp"
#include "aisp/result.hpp"
#include "core/context_state.hpp"
#include "measure/interleaved_sampling.hpp"
#include "measure/kernel_trace.hpp"
#include "measure/variant_timer.hpp"

namespace aisp {

class TimedCallChecker {
 public:
  // `options`: the timing contexts' options (stream, device); `secret`: draw_secret_seed().
  TimedCallChecker(VariantTimer& baseline, VariantTimer& optimized,
                   BenchmarkFactory baseline_factory, BenchmarkFactory optimized_factory,
                   ContextOptions options, std::uint64_t secret);
  ~TimedCallChecker();
  TimedCallChecker(const TimedCallChecker&) = delete;
  TimedCallChecker& operator=(const TimedCallChecker&) = delete;

  // The optimized variant as the sampling loop's source: its samples, some of them checked.
  SampleSource& optimized_source();

  // After sampling: the refreshed-input call of both variants (traced on the GPU with `tracer`,
  // which may be null), then the outcomes: `timed_calls_checked` (twice: during and after the
  // samples) and, on the GPU, `traced_work_inside_stream`.
  void finish(std::vector<CheckOutcome>& checks, KernelTracer* tracer);

 private:
  class CheckedSource;
  struct Comparison {
    bool passed = true;
    std::string detail;  // the first failure, or what was compared
  };

  bool perturbable(std::string& why_not);
  void perturb(std::uint64_t selection);
  Comparison compare_outputs();
  bool refresh_inputs(std::string& note);
  std::string trace_outcome(const char* who, const KernelTrace& trace, bool& passed) const;

  VariantTimer& baseline_;
  VariantTimer& optimized_;
  BenchmarkFactory baseline_factory_, optimized_factory_;
  ContextOptions options_;
  std::uint64_t secret_;
  std::mt19937_64 draw_;
  std::unique_ptr<CheckedSource> source_;

  bool perturb_ = false;
  std::string no_perturb_reason_;
  std::size_t samples_ = 0;
  std::vector<std::size_t> checked_samples_;  // 1-based sample numbers
  std::size_t elements_changed_ = 0;          // per checked sample, over all inputs of one instance
  bool sampling_passed_ = true;
  std::string sampling_failure_;
};

}  // namespace aisp
