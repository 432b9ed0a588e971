#include "report/audit_report.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace aisp {
namespace {

// Column titles of the text table, by check.
constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kColumns{{
    {"variants_present", "variants"},
    {"constructible", "construct"},
    {"requirements_consistent", "requirements"},
    {"workload_declared", "workload"},
    {"signature_declared", "signature"},
    {"tolerance_justified", "tolerance"},
    {"lower_precision", "precision"},
    {"library_reference", "library"},
    {"input_domain_justified", "domain"},
    {"timing_declared", "timing"},
    {"outputs_declared", "outputs"},
    {"file_names", "names"},
    {"chapter_readme", "readme"},
}};

std::string_view cell_text(AuditOutcome outcome) {
  switch (outcome) {
  case AuditOutcome::pass:
    return "ok";
  case AuditOutcome::fail:
    return "FAIL";
  case AuditOutcome::deferred:
    return "verify";
  }
  return "?";
}

// What a passed check declares that a reader should see even when nothing failed: a library
// reference of the pair, a lower-precision variant. "" for checks that declare nothing.
std::string declaration(const AuditCheck& c) {
  if (c.outcome != AuditOutcome::pass) {
    return {};
  }
  if (c.check == "library_reference" && c.detail != "none declared in the pair") {
    return "library reference: " + c.detail;
  }
  if (c.check == "lower_precision" && c.detail != "none declared") {
    return "lower precision: " + c.detail;
  }
  return {};
}

}  // namespace

std::string render_audit_text(const std::vector<PairAudit>& audits) {
  namespace rf = report_format;
  if (audits.empty()) {
    return "No pairs to audit.\n";
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"Target", "Contract"};
  for (const auto& [check_name, title] : kColumns) {
    header.emplace_back(title);
  }
  rows.push_back(header);
  std::size_t complete = 0;
  bool any_deferred = false;
  for (const PairAudit& audit : audits) {
    std::vector<std::string> row = {audit.target, audit.complete() ? "complete" : "INCOMPLETE"};
    complete += audit.complete() ? 1 : 0;
    for (const auto& [check_name, title] : kColumns) {
      const auto found = std::find_if(audit.checks.begin(), audit.checks.end(),
                                      [&](const AuditCheck& c) { return c.check == check_name; });
      row.emplace_back(found == audit.checks.end() ? std::string(rf::kAbsent)
                                                   : std::string(cell_text(found->outcome)));
      any_deferred =
          any_deferred || (found != audit.checks.end() && found->outcome == AuditOutcome::deferred);
    }
    rows.push_back(std::move(row));
  }
  std::string text = rf::render_columns(rows);
  for (const PairAudit& audit : audits) {
    if (audit.complete()) {
      continue;
    }
    text += "\n" + audit.target + "\n";
    for (const AuditCheck& c : audit.checks) {
      if (c.outcome == AuditOutcome::fail) {
        text += fmt::format("  FAIL {}: {}\n", c.check, rf::single_line(c.detail));
      }
    }
  }
  std::string declarations;
  for (const PairAudit& audit : audits) {
    for (const AuditCheck& c : audit.checks) {
      if (const std::string declared = declaration(c); !declared.empty()) {
        declarations += fmt::format("  {}  {}\n", audit.target, rf::single_line(declared));
      }
    }
  }
  if (!declarations.empty()) {
    text += "\nDeclared (docs/contract.md: \"Library reference\", \"Lower precision\"):\n" +
            declarations;
  }
  if (any_deferred) {
    text += "\nverify: decided only after setup() (the outputs always; a signature or dtype that "
            "setup sets), so `bench verify` checks it, not the audit; or a variant is unavailable "
            "on this machine (aisp::Unavailable), so it is checked where it can run.\n";
  }
  text += fmt::format("\n{} pair{}: {} complete, {} incomplete.\n", audits.size(),
                      audits.size() == 1 ? "" : "s", complete, audits.size() - complete);
  return text;
}

nlohmann::ordered_json audit_to_json(const std::vector<PairAudit>& audits) {
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
  std::size_t complete = 0;
  for (const PairAudit& audit : audits) {
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const AuditCheck& c : audit.checks) {
      checks.push_back(nlohmann::ordered_json{
          {"check", c.check}, {"outcome", audit_outcome_name(c.outcome)}, {"detail", c.detail}});
    }
    complete += audit.complete() ? 1 : 0;
    pairs.push_back(nlohmann::ordered_json{{"target", audit.target},
                                           {"chapter", audit.chapter},
                                           {"complete", audit.complete()},
                                           {"checks", std::move(checks)}});
  }
  return nlohmann::ordered_json{
      {"complete", complete == audits.size()},
      {"pairs", std::move(pairs)},
      {"counts",
       {{"pairs", audits.size()},
        {"complete", complete},
        {"incomplete", audits.size() - complete}}},
  };
}

}  // namespace aisp
