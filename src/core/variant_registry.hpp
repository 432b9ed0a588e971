// Every variant compiled into this binary, recorded at static-initialization time by
// AISP_VARIANT through register_variant(). Chapter, pair name and role come from the path.
#pragma once

#include <string>
#include <vector>

#include "aisp/benchmark.hpp"

namespace aisp {

enum class VariantRole { baseline, optimized };

struct VariantInfo {
  std::string chapter;      // "ch07", or "labs/<lab>" for files under labs/<lab>/
  std::string folder;       // "ch07_memory_access", or the lab folder name
  std::string stem;         // "optimized_transpose_padded"
  VariantRole role = VariantRole::baseline;
  std::string name;         // the stem without its role prefix: "transpose_padded"
  std::string source_path;  // as __FILE__ gave it
  BenchmarkFactory factory;
};

// Parses a source path into a VariantInfo (factory left empty). Throws std::invalid_argument with
// what is wrong (file not named baseline_* / optimized_*, folder not chNN_<topic> or under labs/).
VariantInfo parse_variant_path(const std::string& source_path);

// All registered variants, in registration order. The only global in the harness: static
// registration needs one.
const std::vector<VariantInfo>& registered_variants();

}  // namespace aisp
