// A target's library reference in its worker (docs/contract.md, "Library reference"): which
// variant of the pair declares library_reference(), how this target meets it, and, when the
// reference is a third variant, its timer as a third participant of the interleaved sampling.
// The fraction is reference median / optimized median over samples taken in this process,
// interleaved with the optimized variant's (docs/decisions.md says why not across workers).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "aisp/result.hpp"
#include "core/context_state.hpp"
#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "measure/interleaved_sampling.hpp"
#include "measure/l2_flusher.hpp"
#include "measure/variant_timer.hpp"

namespace aisp {

struct LibraryReferencePlan {
  // Unset when no variant of the pair declares a library reference. Otherwise the library, the
  // reference's stem and this target's role; `reason` set when a fraction cannot be had at all
  // (two variants declare one).
  std::optional<LibraryComparison> comparison;
  // Role timed: the reference to time beside the pair; null otherwise.
  const VariantInfo* reference = nullptr;
};

// Looks the pair's library reference up in this binary's registry.
LibraryReferencePlan plan_library_reference(const PairInfo& pair);

// The reference as the third participant of a target's sampling: set up and warmed up like the
// pair's variants. A reference that cannot run here (aisp::Unavailable from its setup, an unmet
// requirement, a CPU reference beside a GPU pair or the reverse) or that fails before timing does
// not fail the target: it takes no part and `reason()` says why there is no fraction.
class LibraryReferenceTimer {
 public:
  LibraryReferenceTimer(const VariantInfo& reference, const std::string& library,
                        const std::string& target, bool gpu_pair, const ContextOptions& options,
                        L2Flusher* flusher, const MeasurementSettings& settings);

  // The source to sample, or null when the reference takes no part.
  VariantTimer* timer() { return timer_.get(); }
  const std::string& reason() const { return reason_; }

 private:
  std::unique_ptr<VariantTimer> timer_;
  std::string reason_;
};

// Fills `comparison.fraction` once the target's samples are taken: for role timed from the
// reference's samples (`reference`, set unless it took no part) against the optimized variant's,
// for role baseline from the speedup. `optimized_ms` are the samples the optimized variant was
// judged by (event times, or host times for host-clock variants); so are `reference`'s.
void complete_library_comparison(LibraryComparison& comparison, const PairResult& result,
                                 std::optional<VariantMeasurement> reference,
                                 const MeasurementSettings& settings);

}  // namespace aisp
