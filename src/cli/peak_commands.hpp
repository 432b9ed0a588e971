// `aisp bench peak` (measure this machine's ceilings and store them) and `aisp bench
// theoretical-peak` (datasheet figures of known GPUs). The commands hold their own flags;
// cli.cpp adds them to `bench` and asks, after parsing, whether one of them was called.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/artifacts_layout.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace aisp {

class PeakCommands {
 public:
  // Adds `peak` and `theoretical-peak` to the `bench` command.
  void add_to(CLI::App& bench);
  // The exit code of the command that was parsed, or nullopt when neither was.
  std::optional<int> run_if_parsed();

 private:
  CLI::App* peak_ = nullptr;
  CLI::App* theoretical_ = nullptr;
  bool peak_json_ = false;
  bool peak_quick_ = false;
  std::string peak_json_file_;
  std::vector<std::string> peak_figures_;
  std::string peaks_dir_ = artifacts::default_peaks_dir().string();
  std::string gpu_;
  bool theoretical_json_ = false;
};

}  // namespace aisp
