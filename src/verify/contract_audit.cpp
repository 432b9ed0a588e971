#include "verify/contract_audit.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "aisp/benchmark.hpp"
#include "system/build_info.hpp"

namespace aisp {
namespace {

namespace fs = std::filesystem;

// One variant, constructed for its metadata; `error` says why it could not be.
struct AuditedVariant {
  const VariantInfo* info = nullptr;
  std::unique_ptr<Benchmark> instance;
  std::string error;
  bool unavailable = false;  // the constructor threw aisp::Unavailable: a skip, not a failure
};

AuditedVariant construct(const VariantInfo* info) {
  AuditedVariant variant;
  variant.info = info;
  if (info == nullptr || !info->factory) {
    variant.error = "no factory registered";
    return variant;
  }
  try {
    variant.instance = info->factory();
    if (!variant.instance) {
      variant.error = "its factory returned no object";
    }
  } catch (const Unavailable& unavailable) {
    variant.error = unavailable.what();
    variant.unavailable = true;
  } catch (const std::exception& error) {
    variant.error = fmt::format("its constructor threw: {}", error.what());
  } catch (...) {
    variant.error = "its constructor threw something that is not a std::exception";
  }
  return variant;
}

// Calls a metadata method, turning an exception into a failed check's detail.
template <class Read>
auto ask(const AuditedVariant& variant, const char* method, Read read, std::string& error)
    -> std::optional<decltype(read(*variant.instance))> {
  try {
    return read(*variant.instance);
  } catch (const Unavailable&) {
    throw;  // a skip on this machine: audit_pair defers what is left
  } catch (const std::exception& e) {
    error = fmt::format("{}.{}() threw before setup: {}", variant.info->stem, method, e.what());
  } catch (...) {
    error = fmt::format("{}.{}() threw before setup", variant.info->stem, method);
  }
  return std::nullopt;
}

AuditCheck check(std::string name, AuditOutcome outcome, std::string detail) {
  return AuditCheck{std::move(name), outcome, std::move(detail)};
}

// The oldest architecture with the feature (device_snapshot.cpp decides the exact ones).
int minimum_compute_capability(Feature feature) {
  switch (feature) {
  case Feature::fp8:
    return 89;
  case Feature::tma:
  case Feature::wgmma:
  case Feature::thread_block_clusters:
    return 90;
  case Feature::tcgen05:
    return 100;
  }
  return 0;
}

std::string describe_requirements(const Requirements& r) {
  if (r.cpu_only) {
    return "CPU only";
  }
  std::string text = fmt::format("sm_{}+", r.min_compute_capability);
  for (Feature f : r.features) {
    text += fmt::format(", {}", feature_name(f));
  }
  if (r.min_gpus > 1) {
    text += fmt::format(", {} GPUs", r.min_gpus);
  }
  if (r.min_free_device_bytes > 0) {
    text += fmt::format(", {:.3g} GB free", static_cast<double>(r.min_free_device_bytes) / 1e9);
  }
  if (!r.needs_one_process.empty()) {
    text += ", one process";  // skipped under mpirun (docs/multi-gpu.md)
  }
  return text;
}

// What contradicts itself in one variant's requirements.
std::vector<std::string> requirement_problems(const std::string& who, const Requirements& r) {
  std::vector<std::string> problems;
  if (r.cpu_only) {
    if (r.min_gpus != 0) {
      problems.push_back(fmt::format("{} is CPU-only but needs {} GPU(s)", who, r.min_gpus));
    }
    if (!r.features.empty()) {
      problems.push_back(fmt::format("{} is CPU-only but needs GPU features", who));
    }
    if (r.min_free_device_bytes > 0) {
      problems.push_back(fmt::format("{} is CPU-only but needs free device memory", who));
    }
    return problems;
  }
  if (r.min_gpus < 1) {
    problems.push_back(fmt::format("{} needs a GPU but declares min_gpus {}; use "
                                   "Requirements::cpu() for a host-only variant",
                                   who, r.min_gpus));
  }
  if (!r.needs_one_process.empty() && r.min_gpus <= 1) {
    problems.push_back(fmt::format("{} declares needs_one_process with min_gpus {}: only a "
                                   "multi-GPU variant drives several GPUs from one process (a "
                                   "one-GPU pair always runs in one process)",
                                   who, r.min_gpus));
  }
  if (r.min_compute_capability < 30 || r.min_compute_capability > 200) {
    problems.push_back(fmt::format("{}: min_compute_capability {} is not major*10+minor (90 for "
                                   "sm_90)",
                                   who, r.min_compute_capability));
  }
  for (Feature f : r.features) {
    const int needed = minimum_compute_capability(f);
    if (r.min_compute_capability < needed) {
      problems.push_back(fmt::format("{} needs {} but declares min_compute_capability {}; {} "
                                     "exists from sm_{}: declare at least {}",
                                     who, feature_name(f), r.min_compute_capability,
                                     feature_name(f), needed, needed));
    }
  }
  return problems;
}

AuditCheck audit_requirements(const AuditedVariant& baseline, const AuditedVariant& optimized) {
  std::string error;
  const auto b = ask(
      baseline, "requirements", [](const Benchmark& x) { return x.requirements(); }, error);
  const auto o = ask(
      optimized, "requirements", [](const Benchmark& x) { return x.requirements(); }, error);
  if (!b || !o) {
    return check("requirements_consistent", AuditOutcome::fail, error);
  }
  std::vector<std::string> problems = requirement_problems(baseline.info->stem, *b);
  for (std::string& p : requirement_problems(optimized.info->stem, *o)) {
    problems.push_back(std::move(p));
  }
  if (!problems.empty()) {
    return check("requirements_consistent", AuditOutcome::fail,
                 fmt::format("{}", fmt::join(problems, "; ")));
  }
  const std::string bt = describe_requirements(*b);
  const std::string ot = describe_requirements(*o);
  return check(
      "requirements_consistent", AuditOutcome::pass,
      bt == ot ? bt
               : fmt::format("baseline {}, optimized {}: the pair runs where both can", bt, ot));
}

bool same_workload(const Workload& a, const Workload& b) {
  return a.bytes == b.bytes && a.flops == b.flops && a.launches == b.launches;
}

AuditCheck audit_workload(const AuditedVariant& baseline, const AuditedVariant& optimized) {
  constexpr const char* kName = "workload_declared";
  std::string error;
  const auto b = ask(
      baseline, "workload", [](const Benchmark& x) { return x.workload(); }, error);
  const auto o = ask(
      optimized, "workload", [](const Benchmark& x) { return x.workload(); }, error);
  if (!b || !o) {
    return check(kName, AuditOutcome::fail, error);
  }
  for (const Workload* w : {&*b, &*o}) {
    for (double value : {w->bytes, w->flops, w->launches}) {
      if (!std::isfinite(value) || value < 0) {
        return check(kName, AuditOutcome::fail,
                     fmt::format("bytes {:g}, FLOPs {:g}, launches {:g}: each must be a finite "
                                 "count >= 0",
                                 w->bytes, w->flops, w->launches));
      }
    }
  }
  const std::string numbers = fmt::format("bytes {:.4g}, FLOPs {:.4g}, launches {:g} per run",
                                          b->bytes, b->flops, b->launches);
  if (b->bytes <= 0 && b->flops <= 0) {
    return check(kName, AuditOutcome::fail,
                 "0 bytes and 0 FLOPs per run before setup: results record the workload read "
                 "before setup and the roofline needs it; declare the bytes (each input read "
                 "once, each output written once) and FLOPs in workload()");
  }
  if (!same_workload(*b, *o)) {
    return check(kName, AuditOutcome::fail,
                 fmt::format("baseline {} vs optimized bytes {:.4g}, FLOPs {:.4g}, launches {:g}: "
                             "both variants must declare the same work (workloads_equal)",
                             numbers, o->bytes, o->flops, o->launches));
  }
  if (b->launch_ceiling != Ceiling::none && b->launches <= 0) {
    return check(kName, AuditOutcome::fail,
                 fmt::format("{}: bounded by {} but declares no launches; the launch floor is "
                             "launches x the per-launch cost",
                             numbers, ceiling_name(b->launch_ceiling)));
  }
  return check(kName, AuditOutcome::pass, numbers);
}

AuditCheck audit_signature(const AuditedVariant& baseline, const AuditedVariant& optimized) {
  constexpr const char* kName = "signature_declared";
  std::string error;
  const auto b = ask(
      baseline, "signature", [](const Benchmark& x) { return x.signature(); }, error);
  const auto o = ask(
      optimized, "signature", [](const Benchmark& x) { return x.signature(); }, error);
  if (!b || !o) {
    return check(kName, AuditOutcome::fail, error);
  }
  if (b->entries().empty() && o->entries().empty()) {
    return check(kName, AuditOutcome::deferred,
                 "empty before setup: set in setup(), compared at verification (signatures_equal)");
  }
  if (!(*b == *o)) {
    return check(kName, AuditOutcome::deferred,
                 fmt::format("before setup, baseline [{}] vs optimized [{}]; verification compares "
                             "them after setup (signatures_equal)",
                             b->to_string(), o->to_string()));
  }
  return check(
      kName, AuditOutcome::pass,
      fmt::format("{} (before setup; compared again after setup at verification)", b->to_string()));
}

// The dtype the signature names ("dtype=f32"), when it names one.
std::optional<DType> signature_dtype(const AuditedVariant& variant) {
  try {
    const Signature signature = variant.instance->signature();
    for (const auto& [key, value] : signature.entries()) {
      if (key == "dtype") {
        return dtype_from_name(value);
      }
    }
  } catch (...) {  // audit_signature reports it
  }
  return std::nullopt;
}

AuditCheck audit_tolerance(const AuditedVariant& baseline, const AuditedVariant& optimized) {
  constexpr const char* kName = "tolerance_justified";
  std::string error;
  const auto b = ask(
      baseline, "tolerance", [](const Benchmark& x) { return x.tolerance(); }, error);
  const auto o = ask(
      optimized, "tolerance", [](const Benchmark& x) { return x.tolerance(); }, error);
  if (!b || !o) {
    return check(kName, AuditOutcome::fail, error);
  }
  // As verification does: the optimized variant's tolerance, else the baseline's.
  const std::optional<Tolerance> tolerance = o->has_value() ? *o : *b;
  if (!tolerance) {
    return check(kName, AuditOutcome::pass, "the dtype's default (none declared)");
  }
  const std::string values = fmt::format("rtol={:g} atol={:g}", tolerance->rtol, tolerance->atol);
  if (!(tolerance->rtol >= 0) || !(tolerance->atol >= 0)) {
    return check(kName, AuditOutcome::fail, values + ": both must be numbers >= 0");
  }
  if (!tolerance->justification.empty()) {
    return check(kName, AuditOutcome::pass, values + ": " + tolerance->justification);
  }
  const std::optional<DType> dtype = signature_dtype(baseline);
  if (!dtype) {
    return check(kName, AuditOutcome::deferred,
                 values + " without a justification; the outputs' dtype is known only after "
                          "setup: verification compares it with the dtype's default");
  }
  const Tolerance standard = Tolerance::for_dtype(*dtype);
  if (tolerance->rtol > standard.rtol || tolerance->atol > standard.atol) {
    return check(kName, AuditOutcome::fail,
                 fmt::format("{} is looser than the {} default (rtol={:g} atol={:g}) and has no "
                             "justification: state the error bound in tolerance()",
                             values, dtype_name(*dtype), standard.rtol, standard.atol));
  }
  return check(kName, AuditOutcome::pass,
               fmt::format("{}, no looser than the {} default", values, dtype_name(*dtype)));
}

// Where verification's varied inputs apply: every distribution unless the pair restricts them,
// and a restriction must say why (docs/integrity.md, "Varied inputs").
AuditCheck audit_input_domain(const AuditedVariant& baseline, const AuditedVariant& optimized) {
  constexpr const char* kName = "input_domain_justified";
  std::string error;
  const auto b = ask(
      baseline, "input_domain", [](const Benchmark& x) { return x.input_domain(); }, error);
  const auto o = ask(
      optimized, "input_domain", [](const Benchmark& x) { return x.input_domain(); }, error);
  if (!b || !o) {
    return check(kName, AuditOutcome::fail, error);
  }
  if (!b->has_value() && !o->has_value()) {
    return check(kName, AuditOutcome::pass,
                 "every input distribution (uniform, offset, wide_range where the dtype holds it)");
  }
  std::vector<std::string> off;
  std::string justification;
  for (const auto* declared : {&*b, &*o}) {
    if (!declared->has_value()) continue;
    if (!(*declared)->offset) off.push_back("offset");
    if (!(*declared)->wide_range) off.push_back("wide_range");
    if (justification.empty()) justification = (*declared)->justification;
  }
  std::sort(off.begin(), off.end());
  off.erase(std::unique(off.begin(), off.end()), off.end());
  if (off.empty()) {
    return check(kName, AuditOutcome::pass, "declared, every input distribution allowed");
  }
  const std::string restricted = fmt::format("{} not tried", fmt::join(off, " and "));
  if (justification.empty()) {
    return check(kName, AuditOutcome::fail,
                 restricted + " without a justification: say in input_domain() why the problem "
                              "is not defined there");
  }
  return check(kName, AuditOutcome::pass, fmt::format("{}: {}", restricted, justification));
}

// Both variants must be timable by one method; declared modes that cannot be (per call against
// forced graph replay) need a reason, or timing_methods_equal fails the pair when it runs.
AuditCheck audit_timing(const AuditedVariant& baseline, const AuditedVariant& optimized) {
  constexpr const char* kName = "timing_declared";
  std::string error;
  const auto b = ask(
      baseline, "timing_mode", [](const Benchmark& x) { return x.timing_mode(); }, error);
  const auto o = ask(
      optimized, "timing_mode", [](const Benchmark& x) { return x.timing_mode(); }, error);
  const auto bj = ask(
      baseline, "timing_asymmetry_justification",
      [](const Benchmark& x) { return x.timing_asymmetry_justification(); }, error);
  const auto oj = ask(
      optimized, "timing_asymmetry_justification",
      [](const Benchmark& x) { return x.timing_asymmetry_justification(); }, error);
  if (!b || !o || !bj || !oj) {
    return check(kName, AuditOutcome::fail, error);
  }
  const auto name = [](TimingMode mode) {
    return mode == TimingMode::direct ? "direct" : mode == TimingMode::graph ? "graph" : "automatic";
  };
  const std::string modes = fmt::format("baseline {}, optimized {}", name(*b), name(*o));
  const std::string justification = !oj->empty() ? *oj : *bj;
  const bool opposed = (*b == TimingMode::direct && *o == TimingMode::graph) ||
                       (*b == TimingMode::graph && *o == TimingMode::direct);
  if (!justification.empty()) {
    return check(kName, AuditOutcome::pass,
                 fmt::format("{}; may be timed differently: {}", modes, justification));
  }
  if (opposed) {
    return check(kName, AuditOutcome::fail,
                 modes + ": one forces graph replay, the other per-call timing, so the pair "
                         "cannot be timed alike; use one timing_mode() or give "
                         "timing_asymmetry_justification()");
  }
  return check(kName, AuditOutcome::pass, modes + ": timed alike");
}

// Lowercase letters, digits and single '_' between words: "transpose_padded".
bool is_snake_case(std::string_view name) {
  if (name.empty() || name.front() == '_' || name.back() == '_' ||
      name.find("__") != std::string_view::npos) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_chapter_folder(std::string_view folder) {
  if (folder.size() < 4 || folder.substr(0, 2) != "ch") {
    return false;
  }
  std::size_t digits = 2;
  while (digits < folder.size() && folder[digits] >= '0' && folder[digits] <= '9') {
    ++digits;
  }
  return digits > 2 && digits + 1 < folder.size() && folder[digits] == '_' &&
         is_snake_case(folder.substr(digits + 1));
}

AuditCheck audit_file_names(const PairInfo& pair) {
  std::vector<std::string> problems;
  for (const VariantInfo* v : {pair.baseline, pair.optimized}) {
    const fs::path path(v->source_path);
    const std::string extension = path.extension().string();
    if (extension != ".cu" && extension != ".cpp") {
      problems.push_back(
          fmt::format("{}: a variant is a .cu or .cpp file", path.filename().string()));
    }
    if (!is_snake_case(v->name)) {
      problems.push_back(fmt::format("{}: the name after the role prefix should be lowercase "
                                     "snake_case (letters, digits, single '_')",
                                     path.filename().string()));
    }
  }
  const bool lab = pair.chapter.starts_with("labs/");
  if (!lab && !is_chapter_folder(pair.baseline->folder)) {
    problems.push_back(fmt::format("folder {}: a chapter folder is chNN_<topic> (e.g. "
                                   "ch07_memory_access)",
                                   pair.baseline->folder));
  }
  if (!lab && fs::path(pair.baseline->source_path).parent_path() !=
                  fs::path(pair.optimized->source_path).parent_path()) {
    problems.push_back("the baseline and the optimized file are in different folders; a pair "
                       "lives in one chapter folder");
  }
  if (!problems.empty()) {
    return check("file_names", AuditOutcome::fail, fmt::format("{}", fmt::join(problems, "; ")));
  }
  return check("file_names", AuditOutcome::pass,
               fmt::format("{}/{} -> {}", pair.baseline->folder,
                           fs::path(pair.baseline->source_path).filename().string(),
                           fs::path(pair.optimized->source_path).filename().string()));
}

// The chapter (or lab) folder of a variant: the part of its path up to its folder's name.
fs::path chapter_directory(const VariantInfo& variant) {
  const std::string marker = "/" + variant.folder + "/";
  const std::size_t at = variant.source_path.rfind(marker);
  if (at == std::string::npos) {
    return fs::path(variant.source_path).parent_path();
  }
  return variant.source_path.substr(0, at + marker.size() - 1);
}

// `directory` on this machine. __FILE__ is relative to the build directory when that lies inside
// the source tree ("../chapters/ch07_x"), which means nothing from another working directory:
// such a path is looked up under the source tree this binary was built from.
fs::path locate(const fs::path& directory) {
  std::error_code error;
  if (directory.is_absolute() || fs::is_directory(directory, error)) {
    return directory;
  }
  fs::path inside_tree;
  for (const fs::path& part : directory) {
    if (inside_tree.empty() && (part == ".." || part == ".")) {
      continue;
    }
    inside_tree /= part;
  }
  const std::string& source_dir = build_info().source_dir;
  if (!source_dir.empty() && fs::is_directory(fs::path(source_dir) / inside_tree, error)) {
    return fs::path(source_dir) / inside_tree;
  }
  return directory;
}

AuditCheck audit_readme(const PairInfo& pair) {
  const fs::path directory = locate(chapter_directory(*pair.baseline));
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return check("chapter_readme", AuditOutcome::deferred,
                 fmt::format("{} is not on this machine (the binary was built elsewhere); cannot "
                             "look for its README.md",
                             directory.string()));
  }
  const fs::path readme = directory / "README.md";
  if (!fs::is_regular_file(readme, error)) {
    return check("chapter_readme", AuditOutcome::fail,
                 fmt::format("no README.md in {}: a chapter's README says what the technique is "
                             "and what its pairs measured",
                             directory.string()));
  }
  return check("chapter_readme", AuditOutcome::pass, readme.string());
}

// At most one variant of a pair (the baseline and every optimized variant of it) declares
// library_reference(); every other target then reports its fraction of that one.
AuditCheck audit_library_reference(const PairInfo& pair, const std::vector<PairInfo>& catalog) {
  constexpr const char* kName = "library_reference";
  std::vector<std::string> problems;
  const std::vector<DeclaredLibraryReference> declared =
      declared_library_references(catalog, pair, &problems);
  if (!problems.empty()) {
    return check(kName, AuditOutcome::fail, fmt::format("{}", fmt::join(problems, "; ")));
  }
  if (declared.empty()) {
    return check(kName, AuditOutcome::pass, "none declared in the pair");
  }
  if (declared.size() > 1) {
    std::vector<std::string> names;
    for (const DeclaredLibraryReference& d : declared) {
      names.push_back(fmt::format("{} ({})", d.variant->stem, d.library));
    }
    return check(kName, AuditOutcome::fail,
                 fmt::format("{} variants of pair {} declare library_reference(): {}; at most one "
                             "may, or no target knows which library to report its fraction of",
                             declared.size(), pair.pair, fmt::join(names, ", ")));
  }
  const DeclaredLibraryReference& reference = declared.front();
  if (reference.variant == pair.optimized) {
    const auto siblings = std::count_if(catalog.begin(), catalog.end(), [&](const PairInfo& p) {
      return p.chapter == pair.chapter && p.baseline == pair.baseline && p.target != pair.target;
    });
    return check(kName, AuditOutcome::pass,
                 fmt::format("{}: this target is the pair's reference (its speedup as usual); {}",
                             reference.library,
                             siblings > 0 ? fmt::format("the pair's {} other target{} report their "
                                                        "fraction of it",
                                                        siblings, siblings == 1 ? "" : "s")
                                          : std::string("the pair has no other target to compare "
                                                        "with it yet")));
  }
  if (reference.is_baseline()) {
    return check(kName, AuditOutcome::pass,
                 fmt::format("{}: the baseline {} is the reference, so this target's fraction of "
                             "{} is its speedup (the same samples, no third variant timed)",
                             reference.library, reference.variant->stem, reference.library));
  }
  return check(kName, AuditOutcome::pass,
               fmt::format("{}: reports its fraction of {}, timed beside it in the same worker",
                           reference.library, reference.variant->stem));
}

// A variant that declares lower precision is held to its own bound against the baseline's
// float64 reference(), so the pair must have one, and the declaration must be complete.
AuditCheck audit_lower_precision(const AuditedVariant& baseline, const AuditedVariant& optimized) {
  constexpr const char* kName = "lower_precision";
  std::string error;
  const auto b = ask(
      baseline, "lower_precision", [](const Benchmark& x) { return x.lower_precision(); }, error);
  const auto o = ask(
      optimized, "lower_precision", [](const Benchmark& x) { return x.lower_precision(); }, error);
  const auto has_reference = ask(
      baseline, "reference", [](const Benchmark& x) { return static_cast<bool>(x.reference()); },
      error);
  if (!b || !o || !has_reference) {
    return check(kName, AuditOutcome::fail, error);
  }
  if (!*b && !*o) {
    return check(kName, AuditOutcome::pass, "none declared");
  }
  std::vector<std::string> declarations;
  std::vector<std::string> problems;
  for (const auto& [variant, declared] : {std::pair{&baseline, &*b}, std::pair{&optimized, &*o}}) {
    if (!*declared) {
      continue;
    }
    const LowerPrecision& d = **declared;
    const std::string& stem = variant->info->stem;
    if (d.format.empty()) {
      problems.push_back(fmt::format("{}: the format is empty; say what it computes in", stem));
    }
    if (!(d.max_relative_rms > 0) || !std::isfinite(d.max_relative_rms)) {
      problems.push_back(
          fmt::format("{}: max_relative_rms {:g} is not a bound > 0", stem, d.max_relative_rms));
    }
    if (d.justification.empty()) {
      problems.push_back(
          fmt::format("{}: no justification for the bound {:g}", stem, d.max_relative_rms));
    }
    if (!*has_reference) {
      problems.push_back(fmt::format(
          "{} declares lower precision ({}) but {} gives no float64 reference(): nothing to hold "
          "it to; give reference() in the pair's problem class",
          stem, d.format, baseline.info->stem));
    }
    declarations.push_back(fmt::format("{} computes in {}, held to relative RMS <= {:g} against "
                                       "the float64 reference: {}",
                                       stem, d.format, d.max_relative_rms, d.justification));
  }
  if (!problems.empty()) {
    return check(kName, AuditOutcome::fail, fmt::format("{}", fmt::join(problems, "; ")));
  }
  return check(kName, AuditOutcome::pass, fmt::format("{}", fmt::join(declarations, "; ")));
}

}  // namespace

std::string_view audit_outcome_name(AuditOutcome outcome) {
  switch (outcome) {
  case AuditOutcome::pass:
    return "pass";
  case AuditOutcome::fail:
    return "fail";
  case AuditOutcome::deferred:
    return "deferred";
  }
  return "unknown";
}

bool PairAudit::complete() const {
  return std::none_of(checks.begin(), checks.end(),
                      [](const AuditCheck& c) { return c.outcome == AuditOutcome::fail; });
}

PairAudit audit_pair(const PairInfo& pair, const std::vector<PairInfo>& catalog) {
  PairAudit audit;
  audit.target = pair.target;
  audit.chapter = pair.chapter;
  if (pair.baseline == nullptr || pair.optimized == nullptr) {
    audit.checks.push_back(
        check("variants_present", AuditOutcome::fail,
              pair.baseline == nullptr ? "no baseline variant" : "no optimized variant"));
    return audit;
  }
  const bool factories =
      static_cast<bool>(pair.baseline->factory) && static_cast<bool>(pair.optimized->factory);
  audit.checks.push_back(
      check("variants_present", factories ? AuditOutcome::pass : AuditOutcome::fail,
            factories ? fmt::format("{} + {}", pair.baseline->stem, pair.optimized->stem)
                      : "a variant has no factory: register it with AISP_VARIANT(Class)"));

  const AuditedVariant baseline = construct(pair.baseline);
  const AuditedVariant optimized = construct(pair.optimized);
  const bool constructed = baseline.instance && optimized.instance;
  const bool unavailable = baseline.unavailable || optimized.unavailable;
  std::string construct_detail = "both constructed without a GPU";
  if (!constructed) {
    construct_detail = !baseline.instance
                           ? fmt::format("{}: {}", pair.baseline->stem, baseline.error)
                           : fmt::format("{}: {}", pair.optimized->stem, optimized.error);
    construct_detail += unavailable ? "; unavailable on this machine (aisp::Unavailable): a "
                                      "skip, checked where it can run"
                                    : "; a constructor must not need the GPU or the filesystem: "
                                      "do that in setup()";
  }
  audit.checks.push_back(check("constructible",
                               constructed   ? AuditOutcome::pass
                               : unavailable ? AuditOutcome::deferred
                                             : AuditOutcome::fail,
                               construct_detail));
  // The checks that ask the instances, in order; a method that throws aisp::Unavailable defers
  // the rest (a skip on this machine, as a run would record it).
  using InstanceCheck = std::function<AuditCheck()>;
  const std::vector<std::pair<const char*, InstanceCheck>> instance_checks{
      {"requirements_consistent", [&] { return audit_requirements(baseline, optimized); }},
      {"workload_declared", [&] { return audit_workload(baseline, optimized); }},
      {"signature_declared", [&] { return audit_signature(baseline, optimized); }},
      {"tolerance_justified", [&] { return audit_tolerance(baseline, optimized); }},
      {"lower_precision", [&] { return audit_lower_precision(baseline, optimized); }},
      {"input_domain_justified", [&] { return audit_input_domain(baseline, optimized); }},
      {"timing_declared", [&] { return audit_timing(baseline, optimized); }},
  };
  std::string skip_reason;
  for (const auto& [name, run_check] : instance_checks) {
    if (!constructed) {
      audit.checks.push_back(check(name, unavailable ? AuditOutcome::deferred : AuditOutcome::fail,
                                   unavailable ? "not checked: a variant is unavailable here"
                                               : "not checked: a variant could not be "
                                                 "constructed"));
      continue;
    }
    if (!skip_reason.empty()) {
      audit.checks.push_back(check(name, AuditOutcome::deferred, skip_reason));
      continue;
    }
    try {
      audit.checks.push_back(run_check());
    } catch (const Unavailable& e) {
      skip_reason =
          fmt::format("not checked: unavailable on this machine (aisp::Unavailable): {}", e.what());
      audit.checks.push_back(check(name, AuditOutcome::deferred, skip_reason));
    }
  }
  audit.checks.push_back(audit_library_reference(pair, catalog));
  audit.checks.push_back(check("outputs_declared", AuditOutcome::deferred,
                               "outputs() exist only after setup(): checked at verification "
                               "(outputs_declared, outputs_harness_owned, outputs_written)"));
  audit.checks.push_back(audit_file_names(pair));
  audit.checks.push_back(audit_readme(pair));
  return audit;
}

PairAudit audit_registration_problem(const std::string& problem) {
  PairAudit audit;
  // Pairing problems open with the chapter and the variant ("ch07: optimized_x ('...') has no
  // baseline"): that names the row. Others (a file outside any chapter) get a generic name.
  audit.target = "(registration)";
  const std::size_t colon = problem.find(": ");
  if (colon != std::string::npos && problem.find(' ') > colon) {
    const std::size_t name_end = problem.find(' ', colon + 2);
    audit.chapter = problem.substr(0, colon);
    audit.target = audit.chapter + ":" + problem.substr(colon + 2, name_end - colon - 2);
  }
  audit.checks.push_back(check("variants_present", AuditOutcome::fail, problem));
  return audit;
}

}  // namespace aisp
