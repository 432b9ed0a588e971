// Verification of a pair before it is timed: each variant set up fresh, its outputs poisoned,
// run once, and its outputs read back; then the checks of docs/verification.md. A pair that
// fails any check is not timed and reports no speedup.
#pragma once

#include <optional>

#include "aisp/benchmark.hpp"
#include "aisp/result.hpp"
#include "core/context_state.hpp"

namespace aisp {

// `baseline_signature` receives the baseline's signature as reported after its setup;
// `precision` each variant's error against the baseline's float64 reference() (unset when the
// pair has none and no variant declares lower precision; variant stems are left for the caller).
Verification verify_pair(const BenchmarkFactory& baseline, const BenchmarkFactory& optimized,
                         const ContextOptions& options, Signature* baseline_signature = nullptr,
                         std::optional<PrecisionResult>* precision = nullptr);

// The first failed check as one line ("within_tolerance: out: 12 of 1048576 elements ...").
std::string first_failure(const Verification& verification);

}  // namespace aisp
