// `aisp bench audit`: is every pair's contract complete, checked without running a kernel or
// needing a GPU? Each variant is constructed and asked only what it can answer before setup()
// (signature, requirements, workload, tolerance); what exists only after setup (the outputs, a
// signature or dtype that setup decides) is reported as checked at verification instead.
// docs/integrity.md lists the checks; report/audit_report.hpp prints them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/pair_catalog.hpp"

namespace aisp {

// `deferred`: cannot be decided before setup (or on this machine); verification checks it.
enum class AuditOutcome { pass, fail, deferred };
std::string_view audit_outcome_name(AuditOutcome outcome);  // "pass", "fail", "deferred"

struct AuditCheck {
  std::string check;  // "workload_declared", "tolerance_justified", ...
  AuditOutcome outcome = AuditOutcome::fail;
  std::string detail;  // what was found, and for a failure what to change
};

struct PairAudit {
  std::string target;   // "ch07:transpose_padded"; for an unpaired variant, its file
  std::string chapter;  // "ch07"; empty when unknown
  std::vector<AuditCheck> checks;

  // No check failed (deferred ones do not count against it).
  bool complete() const;
};

// The checks of one pair, in this order: variants_present, constructible,
// requirements_consistent, workload_declared, signature_declared, tolerance_justified,
// lower_precision, library_reference, outputs_declared (always deferred), file_names,
// chapter_readme. Constructing a variant that throws fails `constructible`; the checks that need
// an instance are then failed as not checked. aisp::Unavailable, from a constructor or a method
// asked, defers them instead: the variant cannot run here, as a run would record it (skipped).
// `catalog` holds the pair's sibling targets (the other optimized variants of its baseline), for
// library_reference: at most one variant of a pair declares one. Without it only the pair's two
// variants are asked.
PairAudit audit_pair(const PairInfo& pair, const std::vector<PairInfo>& catalog = {});

// A registration or pairing problem (a misnamed file, an optimized variant without a baseline,
// ...), as build_pair_catalog and registration_problems word it: an incomplete entry of its own
// whose one failed check is `variants_present`.
PairAudit audit_registration_problem(const std::string& problem);

}  // namespace aisp
