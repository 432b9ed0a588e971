// Every variant compiled into this binary, recorded at static-initialization time by
// AISP_VARIANT through register_variant(). Chapter, pair name and role come from the path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aisp/benchmark.hpp"

namespace aisp {

enum class VariantRole { baseline, optimized };

struct VariantInfo {
  std::string chapter;  // "ch07", or "labs/<lab>" for files under labs/<lab>/
  std::string folder;   // "ch07_memory_access", or the lab folder name
  std::string stem;     // "optimized_transpose_padded"
  VariantRole role = VariantRole::baseline;
  std::string name;         // the stem without its role prefix: "transpose_padded"
  std::string source_path;  // as __FILE__ gave it
  BenchmarkFactory factory;
};

// The chapter a folder name stands for: "ch07_memory_access" -> "ch07", "ch7" -> "ch07",
// "ch123_x" -> "ch123" (at least two digits, leading zeros beyond that dropped). nullopt unless
// the name matches ch[0-9]+(_.*)?.
std::optional<std::string> chapter_of_folder(std::string_view folder);

// Parses a source path into a VariantInfo (factory left empty). Throws std::invalid_argument with
// what is wrong (file not named baseline_* / optimized_*, folder not chNN_<topic> or under labs/).
VariantInfo parse_variant_path(const std::string& source_path);

// All registered variants, in registration order. The only global in the harness: static
// registration needs one.
const std::vector<VariantInfo>& registered_variants();

// What went wrong while registering (a file whose path names no chapter or role, an empty
// factory), one sentence each, in registration order. Pairing problems (an optimized variant
// without a baseline, a name registered twice) come from build_pair_catalog. Registration never aborts: the
// CLI prints these as warnings so one misnamed file does not take the whole suite down.
const std::vector<std::string>& registration_problems();

}  // namespace aisp
