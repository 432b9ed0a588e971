#include "worker/library_reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "aisp/benchmark.hpp"
#include "core/variant_registry.hpp"
#include "measure/bootstrap.hpp"
#include "measure/nvtx_ranges.hpp"
#include "system/device_snapshot.hpp"

namespace aisp {
namespace {

// The fraction's bootstrap draws from its own stream, so it does not repeat the speedup's draws.
constexpr std::uint64_t kFractionSeedSalt = 0x11B7A7F7AC7105ull;

std::string names_of(const std::vector<DeclaredLibraryReference>& declared) {
  std::string names;
  for (const DeclaredLibraryReference& d : declared)
    names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", d.variant->stem, d.library);
  return names;
}

}  // namespace

LibraryReferencePlan plan_library_reference(const PairInfo& pair) {
  LibraryReferencePlan plan;
  const std::vector<PairInfo> catalog = build_pair_catalog(registered_variants(), nullptr);
  const std::vector<DeclaredLibraryReference> declared =
      declared_library_references(catalog, pair, nullptr);
  if (declared.empty())
    return plan;
  LibraryComparison comparison;
  if (declared.size() > 1) {
    comparison.library = declared.front().library;
    comparison.reference_variant = declared.front().variant->stem;
    comparison.reason = fmt::format("{} variants of the pair declare a library reference ({}); at "
                                    "most one may (bench audit): no fraction is measured",
                                    declared.size(), names_of(declared));
    plan.comparison = std::move(comparison);
    return plan;
  }
  const DeclaredLibraryReference& reference = declared.front();
  comparison.library = reference.library;
  comparison.reference_variant = reference.variant->stem;
  if (reference.variant == pair.optimized) {
    comparison.role = LibraryRole::reference;
  } else if (reference.is_baseline()) {
    comparison.role = LibraryRole::baseline;
  } else {
    comparison.role = LibraryRole::timed;
    plan.reference = reference.variant;
  }
  plan.comparison = std::move(comparison);
  return plan;
}

LibraryReferenceTimer::LibraryReferenceTimer(const VariantInfo& reference,
                                             const std::string& library, const std::string& target,
                                             bool gpu_pair, const ContextOptions& options,
                                             L2Flusher* flusher,
                                             const MeasurementSettings& settings) {
  const std::string who = fmt::format("the {} reference ({})", library, reference.stem);
  try {
    const Requirements requirements = reference.factory()->requirements();
    if (requirements.cpu_only == gpu_pair) {
      reason_ = fmt::format("{} runs on the {} and this pair on the {}: their times are not "
                            "comparable",
                            who, requirements.cpu_only ? "CPU" : "GPU", gpu_pair ? "GPU" : "CPU");
      return;
    }
    if (gpu_pair) {
      if (auto unmet = unmet_requirement(requirements, probe_device(options.device))) {
        reason_ = fmt::format("{} cannot run here: {}", who, *unmet);
        return;
      }
    }
    timer_ = std::make_unique<VariantTimer>(reference.factory, options, flusher,
                                            nvtx_label(target, reference.stem));
    timer_->prepare(settings);
  } catch (const Unavailable& unavailable) {
    timer_.reset();
    reason_ = fmt::format("{} is unavailable here: {}", who, unavailable.what());
  } catch (const std::exception& error) {
    timer_.reset();
    reason_ = fmt::format("{} failed before timing: {}; its own target shows the failure", who,
                          error.what());
  }
}

void complete_library_comparison(LibraryComparison& comparison, const PairResult& result,
                                 std::optional<VariantMeasurement> reference,
                                 const MeasurementSettings& settings) {
  switch (comparison.role) {
  case LibraryRole::reference:
    return;
  case LibraryRole::baseline:
    if (result.speedup)
      comparison.fraction = result.speedup;
    return;
  case LibraryRole::timed:
    break;
  }
  if (!reference || !result.optimized)
    return;
  const auto judged = [](const VariantMeasurement& m) -> const std::vector<double>& {
    return m.method == TimingMethod::host_clock ? m.host_ms : m.event_ms;
  };
  const std::size_t taken = judged(*reference).size();
  if (taken < 2) {
    comparison.reason = fmt::format("the reference took {} sample(s) beside the optimized "
                                    "variant; a fraction's interval needs at least 2",
                                    taken);
  } else {
    try {
      comparison.fraction =
          bootstrap_speedup(judged(*reference), judged(*result.optimized), settings.confidence,
                            settings.bootstrap_resamples, settings.seed ^ kFractionSeedSalt);
    } catch (const std::invalid_argument& error) {
      comparison.reason = fmt::format("no fraction: {}", error.what());
    }
  }
  comparison.reference = std::move(reference);
}

}  // namespace aisp
