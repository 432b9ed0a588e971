// Pairs: a baseline_<name> with each optimized_<name>[_<suffix>] of the same chapter, and target
// selection over them (`ch07`, `ch07:transpose`, `ch07:transpose_padded`, `labs/<lab>`).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/variant_registry.hpp"

namespace aisp {

struct PairInfo {
  std::string target;   // "ch07:transpose_padded" (or "ch07:transpose" for optimized_transpose)
  std::string chapter;  // "ch07"
  std::string pair;     // baseline name: "transpose"
  const VariantInfo* baseline = nullptr;
  const VariantInfo* optimized = nullptr;
};

// Matches each optimized variant to the baseline of its chapter whose name is the longest prefix
// of the optimized name at a '_' boundary (or equal to it). Optimized variants with no baseline
// and baselines with no optimized variant are reported in `problems`, not paired.
// Sorted by chapter, then pair, then target.
std::vector<PairInfo> build_pair_catalog(const std::vector<VariantInfo>& variants,
                                         std::vector<std::string>* problems);

// A variant that declares itself its pair's library reference (Benchmark::library_reference()).
struct DeclaredLibraryReference {
  const VariantInfo* variant = nullptr;
  std::string library;  // what library_reference() returned: "cuBLASLt"
  bool is_baseline() const { return variant != nullptr && variant->role == VariantRole::baseline; }
};

// The library references declared in `pair`'s pair: its baseline and every optimized variant of
// that baseline in `catalog`, each constructed and asked library_reference(). At most one is
// allowed (bench audit fails more; a run then times none and says why). A variant whose
// constructor or library_reference() throws is named in `problems` and not counted.
std::vector<DeclaredLibraryReference>
declared_library_references(const std::vector<PairInfo>& catalog, const PairInfo& pair,
                            std::vector<std::string>* problems);

// An unknown target; the message names the closest known targets.
class TargetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Selects pairs for the given target arguments (each one target or a comma-separated list), in
// catalog order, without duplicates. An empty list selects every pair. `chNN:<name>` selects the
// pair <name> (all its optimized variants) or the target <name>; `=chNN:<name>` selects exactly
// the target <name>. Throws TargetError naming every malformed or unknown target (the first ten
// with suggestions, one per line, the rest counted). `notes`, when given, receives a line for each
// name that selected a whole pair where a target of the same name exists, saying how to select
// that target alone.
std::vector<PairInfo> select_pairs(const std::vector<PairInfo>& catalog,
                                   const std::vector<std::string>& arguments,
                                   std::vector<std::string>* notes = nullptr);

// The targets of `-t` arguments: each argument split at commas. Throws TargetError for an empty
// item ("ch07,,ch03", ","); a lone empty argument is passed through for select_pairs to refuse.
std::vector<std::string> split_target_arguments(const std::vector<std::string>& arguments);

// Up to `limit` known names closest to `unknown` by edit distance (chapters and targets).
std::vector<std::string> closest_names(const std::string& unknown,
                                       const std::vector<std::string>& known, std::size_t limit);

}  // namespace aisp
