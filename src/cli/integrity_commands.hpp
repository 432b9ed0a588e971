// `aisp bench audit` (is every pair's contract complete? checked without a GPU) and `aisp bench
// quarantine-report` (which pairs of a run were quarantined, and why). cli.cpp adds them to
// `bench` and asks, after parsing, whether one of them was called. docs/integrity.md describes
// both.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/artifacts_layout.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace aisp {

class IntegrityCommands {
 public:
  // Adds `audit` and `quarantine-report` to `bench`. The object must outlive parsing: CLI11
  // writes the flag values into it.
  void add_to(CLI::App& bench);

  // The exit code of the command that was parsed, or nullopt when neither was. Never throws:
  //   audit: 0 every audited pair is complete, 1 some pair is incomplete, 2 a bad target or
  //          -t together with --all;
  //   quarantine-report: 0 the file was read (quarantined pairs or none), 1 a corrupt or
  //          unreadable quarantine.json, 2 no such run (or a run without quarantine.json).
  std::optional<int> run_if_parsed();

 private:
  int audit();
  int quarantine_report();

  CLI::App* audit_ = nullptr;
  std::vector<std::string> audit_targets_;
  bool audit_all_ = false;
  bool audit_json_ = false;

  CLI::App* quarantine_ = nullptr;
  std::string quarantine_run_;
  std::string quarantine_artifacts_dir_{artifacts::kDefaultDir};
  bool quarantine_json_ = false;
};

}  // namespace aisp
