// What `aisp bench quarantine-report` prints: a run's quarantine file (policy/quarantine.hpp)
// for people.
#pragma once

#include <string>

#include "policy/quarantine.hpp"

namespace aisp {

// For people: one block per entry (target, status, phase, date, commit, every failed check with
// its detail, the log), or "Run <id>: no quarantined pairs (...)". Ends with a newline.
std::string render_quarantine_text(const QuarantineFile& file);

}  // namespace aisp
