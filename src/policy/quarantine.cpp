#include "policy/quarantine.hpp"

#include <algorithm>
#include <climits>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "results/json_fields.hpp"
#include "results/results_json.hpp"

namespace aisp {
namespace {

using json_fields::JsonFieldError;
using json_fields::ObjectFields;
using nlohmann::json;

json entry_to_json(const QuarantineEntry& entry) {
  json checks = json::array();
  for (const CheckOutcome& check : entry.failed_checks) {
    checks.push_back(json{{"check", check.check}, {"detail", check.detail}});
  }
  return json{
      {"target", entry.target},
      {"phase", verify_phase_name(entry.phase)},
      {"status", pair_status_name(entry.status)},
      {"reason", entry.reason},
      {"failed_checks", std::move(checks)},
      {"run_id", entry.run_id},
      {"git_commit", entry.git_commit},
      {"date", entry.date},
      {"log_file", entry.log_file},
  };
}

VerifyPhase read_phase(const ObjectFields& fields, std::string_view key) {
  const std::string name = fields.string(key);
  const std::optional<VerifyPhase> phase = parse_verify_phase(name);
  if (!phase) {
    json_fields::fail(fields.path_of(key), "one of " + verify_phase_choices(), json(name));
  }
  return *phase;
}

QuarantineEntry entry_from_json(const ObjectFields& fields) {
  QuarantineEntry entry;
  entry.target = fields.string("target");
  entry.phase = read_phase(fields, "phase");
  const std::string status = fields.string("status");
  const std::optional<PairStatus> parsed_status = parse_pair_status(status);
  if (!parsed_status) {
    json_fields::fail(fields.path_of("status"), "a pair status such as failed or quarantined",
                      json(status));
  }
  entry.status = *parsed_status;
  entry.reason = fields.string("reason");
  const json& checks = fields.array("failed_checks");
  const std::string checks_path = fields.path_of("failed_checks");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const ObjectFields check(checks[i], json_fields::element_path(checks_path, i));
    entry.failed_checks.push_back(
        CheckOutcome{check.string("check"), false, check.string("detail")});
  }
  entry.run_id = fields.string("run_id");
  entry.git_commit = fields.string("git_commit");
  entry.date = fields.string("date");
  entry.log_file = fields.string("log_file");
  return entry;
}

}  // namespace

bool belongs_in_quarantine(const PairResult& result, VerifyPhase phase) {
  if (phase == VerifyPhase::detect) {
    return false;
  }
  if (result.status != PairStatus::failed && result.status != PairStatus::quarantined) {
    return false;
  }
  return std::any_of(result.verification.checks.begin(), result.verification.checks.end(),
                     [](const CheckOutcome& check) { return !check.passed; });
}

QuarantineEntry make_quarantine_entry(const PairResult& result, VerifyPhase phase,
                                      const std::string& run_id, const std::string& git_commit,
                                      const std::string& date) {
  QuarantineEntry entry;
  entry.target = result.target;
  entry.phase = phase;
  entry.status = result.status;
  entry.reason = result.reason;
  for (const CheckOutcome& check : result.verification.checks) {
    if (!check.passed) {
      entry.failed_checks.push_back(check);
    }
  }
  entry.run_id = run_id;
  entry.git_commit = git_commit;
  entry.date = date;
  entry.log_file = result.log_file;
  return entry;
}

nlohmann::json quarantine_to_json(const QuarantineFile& file) {
  json entries = json::array();
  for (const QuarantineEntry& entry : file.entries) {
    entries.push_back(entry_to_json(entry));
  }
  return json{
      {"schema_version", kQuarantineSchemaVersion},
      {"run_id", file.run_id},
      {"verify_phase", verify_phase_name(file.verify_phase)},
      {"entries", std::move(entries)},
  };
}

QuarantineFile quarantine_from_json(const nlohmann::json& value) {
  try {
    const ObjectFields fields(value, "");
    const long long version =
        fields.schema_version(kQuarantineSchemaVersion, kQuarantineSchemaVersion);
    if (version != kQuarantineSchemaVersion) {
      throw ResultsFormatError(fmt::format(
          "schema_version {} is not supported: this build of aisp reads quarantine files of "
          "schema version {}. Read it with the aisp build that wrote it",
          version, kQuarantineSchemaVersion));
    }
    QuarantineFile file;
    file.run_id = fields.string("run_id");
    file.verify_phase = read_phase(fields, "verify_phase");
    const json& entries = fields.array("entries");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      file.entries.push_back(
          entry_from_json(ObjectFields(entries[i], json_fields::element_path("entries", i))));
    }
    return file;
  } catch (const JsonFieldError& error) {
    throw ResultsFormatError(error.what());
  }
}

QuarantineFile load_quarantine_file(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) {
    throw std::runtime_error(fmt::format("cannot read {}", file.string()));
  }
  std::ostringstream text;
  text << stream.rdbuf();
  json value;
  try {
    value = json::parse(text.str());
  } catch (const json::exception& error) {  // parse_error, or out_of_range for 1e400
    throw ResultsFormatError(fmt::format("{}: not valid JSON ({}); the file is damaged or was not "
                                         "written by aisp",
                                         file.string(), json_fields::describe_parse_error(error)));
  }
  try {
    return quarantine_from_json(value);
  } catch (const ResultsFormatError& error) {
    throw ResultsFormatError(fmt::format("{}: {}", file.string(), error.what()));
  }
}

}  // namespace aisp
