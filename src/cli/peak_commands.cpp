// Flags, help and dispatch of the two peak commands; the work is in src/peak/.
#include "cli/peak_commands.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "core/launcher_ranks.hpp"
#include "peak/peak_runner.hpp"
#include "peak/theoretical_peaks.hpp"
#include "results/artifacts_layout.hpp"

namespace aisp {
namespace {

int print_theoretical_peaks(const std::string& gpu, bool json) {
  if (gpu == "list") {
    if (json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const TheoreticalPeak& peak : theoretical_peaks()) {
        list.push_back(theoretical_peak_to_json(peak));
      }
      std::cout << list.dump(2) << "\n";
    } else {
      std::cout << format_theoretical_peak_table(theoretical_peaks());
    }
    return kExitOk;
  }
  const TheoreticalPeak* peak = find_theoretical_peak(gpu);
  if (peak == nullptr) {
    std::vector<std::string> keys;
    for (const TheoreticalPeak& known : theoretical_peaks()) {
      keys.emplace_back(known.key);
    }
    const std::vector<std::string> closest = closest_theoretical_peak_names(gpu);
    std::cerr << fmt::format(
        "error: unknown GPU '{}' for theoretical-peak; {}the known GPUs are: {} (aliases and "
        "device names such as \"NVIDIA H200\" work too). `aisp bench theoretical-peak --gpu "
        "list` shows them all.\n",
        gpu,
        closest.empty() ? std::string("none is close to it; ")
                        : fmt::format("did you mean: {}? ", fmt::join(closest, ", ")),
        fmt::join(keys, ", "));
    return kExitUsage;
  }
  if (json) {
    std::cout << theoretical_peak_to_json(*peak).dump(2) << "\n";
  } else {
    std::cout << format_theoretical_peak(*peak);
  }
  return kExitOk;
}

}  // namespace

void PeakCommands::add_to(CLI::App& bench) {
  peak_ = bench.add_subcommand(
      "peak", "Measure this GPU's ceilings (copy, L2, FP32, GEMM, transfer and launch rates) and "
              "the host's memory bandwidth (alone, without a GPU), and store them where "
              "rooflines read them.");
  peak_->add_flag("--json", peak_json_, "Print the figures as JSON instead of a table.");
  peak_
      ->add_option("--peaks-dir", peaks_dir_,
                   fmt::format("Where to store the ceilings: <DIR>/<hardware key>.json, the "
                               "host's own in <DIR>/host_<hostname>.json. Default: {}, which "
                               "`bench run` reads with its default --artifacts-dir.",
                               artifacts::default_peaks_dir().string()))
      ->type_name("DIR");
  peak_
      ->add_option("--json-file", peak_json_file_,
                   "Also write the JSON report (every repetition, method and anchor) to PATH, "
                   "whatever is printed.")
      ->type_name("PATH");
  peak_
      ->add_option("--figures", peak_figures_,
                   "Measure only these figures (comma-separated names, as in --json: "
                   "graph_node_launch,bf16_gemm); the others keep their stored values.")
      ->delimiter(',')
      ->type_name("NAME,...");
  peak_->add_flag("--quick", peak_quick_,
                  "Smaller sizes and fewer repetitions (seconds, for tests); the figures are "
                  "rough.");

  theoretical_ = bench.add_subcommand(
      "theoretical-peak",
      "Datasheet figures (dense, no sparsity) of a known GPU: bandwidths, FP32/TF32/BF16/FP16/"
      "FP8 rates, NVLink, memory, SMs, L2, TDP.");
  theoretical_
      ->add_option("--gpu", gpu_,
                   "A GPU (h100_sxm, h100_pcie, h200, b200, b300, gb200, a100_sxm, l40s; "
                   "aliases and device names such as \"NVIDIA H200\" work too), or list for "
                   "all of them.")
      ->type_name("NAME|list")
      ->required();
  theoretical_->add_flag("--json", theoretical_json_, "Print JSON instead of text.");
}

std::optional<int> PeakCommands::run_if_parsed() {
  if (peak_ != nullptr && peak_->parsed()) {
    BenchPeakOptions options;
    options.peaks_dir = peaks_dir_;
    options.quick = peak_quick_;
    options.json = peak_json_;
    options.json_file = peak_json_file_;
    for (const std::string& name : peak_figures_) {
      const auto& known = peak_figure_names();
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::cerr << fmt::format("error: --figures: unknown figure '{}'; the figures are: {}\n",
                                 name, fmt::join(known, ", "));
        return kExitUsage;
      }
    }
    options.figures = peak_figures_;
    // Under mpirun every rank would measure the same GPU at once and write the same file.
    std::optional<LauncherRanks> launcher;
    try {
      launcher = detect_launcher_ranks();
    } catch (const LauncherEnvironmentError&) {
      launcher = LauncherRanks{};  // a launcher's variables, damaged: refused all the same
    }
    if (launcher) {
      std::cerr << "error: bench peak under mpirun (several ranks): the ranks would measure one "
                   "GPU at once and write one peaks file; run `aisp bench peak` once, without "
                   "mpirun (its multi-GPU figures use every visible GPU)\n";
      return kExitUsage;
    }
    return run_bench_peak(options, std::cout, std::cerr);
  }
  if (theoretical_ != nullptr && theoretical_->parsed()) {
    return print_theoretical_peaks(gpu_, theoretical_json_);
  }
  return std::nullopt;
}

}  // namespace aisp
