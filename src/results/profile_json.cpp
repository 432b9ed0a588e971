#include "results/profile_json.hpp"

#include <climits>
#include <utility>

namespace aisp {
namespace {

using json_fields::number_to_json;
using json_fields::ObjectFields;
using nlohmann::json;

ProfileStatus read_status(const ObjectFields& fields) {
  const std::string name = fields.string("status");
  const std::optional<ProfileStatus> status = parse_profile_status(name);
  if (!status) {
    json_fields::fail(fields.path_of("status"), "one of " + profile_status_choices(), json(name));
  }
  return *status;
}

int read_count(const ObjectFields& fields, std::string_view key) {
  return static_cast<int>(fields.integer(key, 0, INT_MAX));
}

json kernel_to_json(const ProfiledKernel& kernel) {
  json metrics = json::array();
  for (const ProfileMetric& metric : kernel.metrics) {
    metrics.push_back(json{
        {"name", metric.name}, {"unit", metric.unit}, {"median", number_to_json(metric.median)}});
  }
  return json{{"name", kernel.name},
              {"launches", kernel.launches},
              {"grid_size", kernel.grid_size},
              {"block_size", kernel.block_size},
              {"metrics", std::move(metrics)}};
}

json variant_to_json(const VariantProfile& variant) {
  json kernels = json::array();
  for (const ProfiledKernel& kernel : variant.kernels) {
    kernels.push_back(kernel_to_json(kernel));
  }
  return json{{"variant", variant.variant},
              {"status", profile_status_name(variant.status)},
              {"reason", variant.reason},
              {"command", variant.command},
              {"report", variant.report},
              {"runs", variant.runs},
              {"launches", variant.launches},
              {"duration_ms_per_run", number_to_json(variant.duration_ms_per_run)},
              {"kernels", std::move(kernels)}};
}

ProfiledKernel kernel_from_fields(const ObjectFields& fields) {
  ProfiledKernel kernel;
  kernel.name = fields.string("name");
  kernel.launches = read_count(fields, "launches");
  kernel.grid_size = fields.string("grid_size");
  kernel.block_size = fields.string("block_size");
  const json& metrics = fields.array("metrics");
  const std::string path = fields.path_of("metrics");
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const ObjectFields metric(metrics[i], json_fields::element_path(path, i));
    kernel.metrics.push_back(
        ProfileMetric{metric.string("name"), metric.string("unit"), metric.number("median")});
  }
  return kernel;
}

VariantProfile variant_from_fields(const ObjectFields& fields) {
  VariantProfile variant;
  variant.variant = fields.string("variant");
  variant.status = read_status(fields);
  variant.reason = fields.string("reason");
  variant.command = fields.string("command");
  variant.report = fields.string("report");
  variant.runs = read_count(fields, "runs");
  variant.launches = read_count(fields, "launches");
  variant.duration_ms_per_run = fields.number("duration_ms_per_run");
  const json& kernels = fields.array("kernels");
  const std::string path = fields.path_of("kernels");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    variant.kernels.push_back(
        kernel_from_fields(ObjectFields(kernels[i], json_fields::element_path(path, i))));
  }
  return variant;
}

}  // namespace

nlohmann::json profile_to_json(const PairProfile& profile) {
  json variants = json::object();
  if (profile.baseline) {
    variants["baseline"] = variant_to_json(*profile.baseline);
  }
  if (profile.optimized) {
    variants["optimized"] = variant_to_json(*profile.optimized);
  }
  return json{{"tool", profile.tool},
              {"set", profile.set},
              {"status", profile_status_name(profile.status)},
              {"reason", profile.reason},
              {"warmup_runs", profile.warmup_runs},
              {"samples", profile.samples},
              {"variants", std::move(variants)}};
}

PairProfile profile_from_fields(const ObjectFields& fields) {
  PairProfile profile;
  profile.tool = fields.string("tool");
  profile.set = fields.string("set");
  profile.status = read_status(fields);
  profile.reason = fields.string("reason");
  profile.warmup_runs = read_count(fields, "warmup_runs");
  profile.samples = read_count(fields, "samples");
  const ObjectFields variants = fields.object("variants");
  for (const auto& [key, slot] :
       {std::pair{"baseline", &profile.baseline}, std::pair{"optimized", &profile.optimized}}) {
    if (const json* value = variants.optional(key)) {
      *slot = variant_from_fields(ObjectFields(*value, variants.path_of(key)));
    }
  }
  return profile;
}

}  // namespace aisp
