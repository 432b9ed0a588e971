#include "report/quarantine_report.hpp"

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace aisp {

std::string render_quarantine_text(const QuarantineFile& file) {
  const std::string run = file.run_id.empty() ? "(no run id)" : file.run_id;
  const std::string_view phase = verify_phase_name(file.verify_phase);
  if (file.entries.empty()) {
    return fmt::format("Run {}: no quarantined pairs (verification phase: {}).\n", run, phase);
  }
  const std::size_t count = file.entries.size();
  std::string text = fmt::format("Run {}: {} quarantined pair{} (verification phase: {}).\n", run,
                                 count, count == 1 ? "" : "s", phase);
  for (const QuarantineEntry& entry : file.entries) {
    text += fmt::format("\n{}  {} under --verify-phase {}, {}, commit {}\n", entry.target,
                        pair_status_name(entry.status), verify_phase_name(entry.phase), entry.date,
                        entry.git_commit);
    for (const CheckOutcome& check : entry.failed_checks) {
      text += fmt::format("  FAIL {}: {}\n", check.check, report_format::single_line(check.detail));
    }
    if (!entry.log_file.empty()) {
      text += fmt::format("  log: {}\n", entry.log_file);
    }
  }
  return text;
}

}  // namespace aisp
