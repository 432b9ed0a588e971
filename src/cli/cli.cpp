// Builds the command tree with CLI11, turns flags into a RunRequest, and maps every failure to an
// exit code with a message that says what to do next. The settings flags come from
// run_setting_descriptors(); each value is parsed and range-checked there, so a bad value is
// reported with what is allowed instead of CLI11's generic conversion error.
#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <deque>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/integrity_commands.hpp"
#include "cli/peak_commands.hpp"
#include "cli/report_commands.hpp"
#include "cli/usage_error.hpp"
#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "core/variant_registry.hpp"
#include "policy/expectations.hpp"
#include "profile/profile_set.hpp"
#include "profile/profile_worker.hpp"
#include "results/artifacts_layout.hpp"
#include "results/results_json.hpp"
#include "run/run_request.hpp"
#include "run/suite_runner.hpp"
#include "system/build_info.hpp"
#include "system/shell_words.hpp"
#include "system/system_info.hpp"
#include "worker/worker.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

// The command as a user could paste it back into a shell.
std::string shell_command_line(int argc, char** argv) {
  return shell_join(std::vector<std::string>(argv, argv + argc));
}

// The name help and hints use: the binary's file name ("aisp", "aisp_test_suite").
std::string program_name(int argc, char** argv) {
  if (argc < 1 || argv[0] == nullptr || argv[0][0] == '\0') {
    return "aisp";
  }
  return std::filesystem::path(argv[0]).filename().string();
}

// CLI11's metavariable for a setting, from its unit and type.
std::string setting_metavar(const RunSettingDescriptor& descriptor) {
  const std::string_view unit = descriptor.unit;
  if (unit == "s") {
    return "SECONDS";
  }
  if (unit == "us") {
    return "MICROSECONDS";
  }
  if (unit == "fraction") {
    return "FRACTION";
  }
  if (std::holds_alternative<VerifyPhase MeasurementSettings::*>(descriptor.member)) {
    return "PHASE";
  }
  return std::holds_alternative<double MeasurementSettings::*>(descriptor.member) ? "NUMBER" : "N";
}

// The settings flags of one subcommand. Values are captured as text and parsed by
// apply_run_setting, which knows each setting's type and range.
class SettingFlags {
 public:
  SettingFlags(CLI::App& command, bool verify_only) : verify_only_(verify_only) {
    const MeasurementSettings defaults;
    for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
      if (verify_only && !descriptor.applies_to_verify) {
        continue;
      }
      Flag& flag = flags_.emplace_back();
      flag.descriptor = &descriptor;
      const std::string help = std::string(descriptor.help) + ". Allowed: " + descriptor.allowed +
                               "; default " + run_setting_value_text(defaults, descriptor) + ".";
      flag.option = command.add_option(descriptor.flag, flag.text, help)
                        ->type_name(setting_metavar(descriptor))
                        ->group("Measurement settings");
    }
  }

  // The defaults overridden by the given flags. Throws UsageError listing every problem.
  MeasurementSettings resolve() const {
    MeasurementSettings settings;
    std::vector<std::string> problems;
    for (const Flag& flag : flags_) {
      if (flag.option->count() == 0) {
        continue;
      }
      if (std::optional<std::string> problem =
              apply_run_setting(settings, *flag.descriptor, flag.text)) {
        problems.push_back(std::move(*problem));
      }
    }
    if (problems.empty()) {
      problems = validate_measurement_settings(settings, verify_only_);
    }
    if (!problems.empty()) {
      std::string message = problems.front();
      for (std::size_t i = 1; i < problems.size(); ++i) {
        message += "\nerror: " + problems[i];
      }
      throw UsageError(message);
    }
    return settings;
  }

 private:
  struct Flag {
    const RunSettingDescriptor* descriptor = nullptr;
    CLI::Option* option = nullptr;
    std::string text;
  };
  bool verify_only_ = false;
  std::deque<Flag> flags_;  // a deque: CLI11 holds references to each Flag's text
};

// The flags `bench run` and `bench verify` share, and the request they build.
struct SuiteCommand {
  CLI::App* command = nullptr;
  std::vector<std::string> targets;
  bool json = false;
  std::string artifacts_dir{artifacts::kDefaultDir};
  bool update_expectations = false;
  bool allow_mixed_provenance = false;
  bool allow_dirty = false;
  bool fail_on_regression = false;
  std::string expectation_threshold_percent;  // as typed; applies only when the flag is given
  std::string chapters_dir;
  bool has_expectation_flags = false;  // bench run, not bench verify
  std::string profile = "none";        // bench run --profile
  std::unique_ptr<SettingFlags> settings;

  void add_flags(CLI::App& app, bool verify_only) {
    command = &app;
    // Commas are split by select_pairs, which refuses an empty item ("ch07,,ch03").
    app.add_option("-t,--target", targets,
                   "A chapter (ch07), pair (ch07:transpose: all its optimized variants), single "
                   "target (ch07:transpose_padded; =ch07:transpose selects exactly the target "
                   "whose name is also the pair's) or lab (labs/<lab>[:<name>]); repeat or "
                   "separate with commas. Default: every pair.")
        ->type_name("TARGET");
    app.add_flag("--json", json, "Print results on stdout as JSON instead of text.");
    app.add_option("--artifacts-dir", artifacts_dir,
                   fmt::format("Where run directories go: <DIR>/runs/<run-id>/. Default: {}.",
                               artifacts::kDefaultDir))
        ->type_name("DIR");
    if (!verify_only)
      app.add_flag("--update-expectations", update_expectations,
                   "Write each verified pair's numbers into its chapter's "
                   "expectations/<hardware key>.json, with provenance (GPU, commit, date, run).");
    if (!verify_only) add_expectation_flags(app);
    if (!verify_only)
      app.add_option("--profile", profile,
                     "After each pair's timing, profile its variants in a separate pass under "
                     "Nsight Compute (clocks not locked) and attach the metrics: none (default), "
                     "ncu (duration, SM and memory throughput, achieved occupancy) or deep (a "
                     "fuller set). See docs/profiling.md.")
          ->type_name("none|ncu|deep");
    settings = std::make_unique<SettingFlags>(app, verify_only);
  }

  // How a run compares with and records expectations (docs/reports.md).
  void add_expectation_flags(CLI::App& app) {
    has_expectation_flags = true;
    app.add_flag("--allow-mixed-provenance", allow_mixed_provenance,
                 "With --update-expectations: also record into a file whose other entries come "
                 "from another GPU or commit.");
    app.add_flag("--allow-dirty", allow_dirty,
                 "With --update-expectations: also record from a source tree with uncommitted "
                 "changes (the commit is recorded as <commit>-dirty).");
    app.add_flag("--fail-on-regression", fail_on_regression,
                 "Exit 1 when a pair's speedup is a regression against its expectation. Default: "
                 "report it only.");
    app.add_option("--expectation-threshold", expectation_threshold_percent,
                   fmt::format("Practical threshold of the expectation verdicts, in percent. "
                               "Default: {:g}.",
                               kDefaultExpectationThreshold * 100))
        ->type_name("PERCENT");
    app.add_option("--chapters-dir", chapters_dir,
                   "Read and write expectations under DIR/<chapter folder>/expectations/. "
                   "Default: each pair's chapter folder in the source tree.")
        ->type_name("DIR");
  }

  // The expectation flags into `request`, refusing combinations that would do nothing.
  void apply_expectation_flags(RunRequest& request) const {
    if (!has_expectation_flags) {
      return;  // bench verify: no timing, no expectations
    }
    if ((allow_mixed_provenance || allow_dirty) && !update_expectations) {
      throw UsageError(fmt::format("{} applies only with --update-expectations: it allows "
                                   "recording what would otherwise be refused",
                                   allow_dirty ? "--allow-dirty" : "--allow-mixed-provenance"));
    }
    if (command->count("--expectation-threshold") > 0) {
      request.expectation_threshold =
          fraction_from_percent_flag("--expectation-threshold", expectation_threshold_percent,
                                     kDefaultExpectationThreshold * 100);
    }
    if (!chapters_dir.empty()) {
      std::error_code error;
      if (!std::filesystem::is_directory(chapters_dir, error)) {
        throw UsageError("--chapters-dir " + chapters_dir +
                         ": not a directory; give the folder that holds (or will hold) the "
                         "chapter folders, e.g. chapters");
      }
      request.chapters_dir = chapters_dir;
    }
    request.allow_mixed_provenance = allow_mixed_provenance;
    request.allow_dirty = allow_dirty;
    request.fail_on_regression = fail_on_regression;
  }
};

struct Catalog {
  std::vector<PairInfo> pairs;
  std::vector<std::string> problems;
};

// Pairs the registered variants and prints what could not be paired as warnings: a pair that
// silently vanished from a run would be worse than a noisy stderr.
Catalog load_catalog() {
  Catalog catalog;
  catalog.problems = registration_problems();
  catalog.pairs = build_pair_catalog(registered_variants(), &catalog.problems);
  for (const std::string& problem : catalog.problems) {
    std::cerr << "warning: " << problem << "\n";
  }
  return catalog;
}

int run_suite_command(const SuiteCommand& suite, bool verify_only, int argc, char** argv) {
  RunRequest request;
  request.measurement = suite.settings->resolve();
  if (suite.update_expectations && request.measurement.verify_phase == VerifyPhase::detect) {
    throw UsageError("--update-expectations with --verify-phase detect: detect does not enforce "
                     "the checks, and expectations are published numbers; record them from a "
                     "run in the gate (default) or quarantine phase");
  }
  request.targets = suite.targets;
  request.artifacts_dir = suite.artifacts_dir;
  request.format = suite.json ? OutputFormat::json : OutputFormat::text;
  request.verify_only = verify_only;
  request.update_expectations = suite.update_expectations;
  suite.apply_expectation_flags(request);
  if (const std::optional<ProfileSet> profile = parse_profile_flag(suite.profile)) {
    request.profile = *profile;
  } else {
    throw UsageError("--profile " + suite.profile + ": must be one of " +
                     std::string(kProfileFlagValues));
  }
  request.command_line = shell_command_line(argc, argv);
  const Catalog catalog = load_catalog();
  std::vector<std::string> notes;
  const std::vector<PairInfo> pairs = select_pairs(catalog.pairs, request.targets, &notes);
  for (const std::string& note : notes) {
    std::cerr << "note: " << note << "\n";
  }
  return run_suite(request, pairs, argv[0]);
}

// Paths inside the source tree are shown relative to it; others (an external project's) as given.
std::string display_path(const std::string& path) {
  const std::string& source_dir = build_info().source_dir;
  if (!source_dir.empty() && path.size() > source_dir.size() + 1 && path.starts_with(source_dir) &&
      path[source_dir.size()] == '/') {
    return path.substr(source_dir.size() + 1);
  }
  return path;
}

// The folder of a chapter, from one of its variant's paths: ".../ch07_memory_access".
std::string chapter_directory(const VariantInfo& variant) {
  const std::string marker = "/" + variant.folder + "/";
  const std::size_t at = variant.source_path.rfind(marker);
  if (at == std::string::npos) {
    return std::filesystem::path(variant.source_path).parent_path().string();
  }
  return variant.source_path.substr(0, at + marker.size() - 1);
}

std::string relative_to(const std::string& path, const std::string& directory) {
  if (path.starts_with(directory + "/")) {
    return path.substr(directory.size() + 1);
  }
  return path;
}

void print_targets_text(const std::vector<PairInfo>& pairs, const std::string& program) {
  if (pairs.empty()) {
    std::cout << "No pairs are registered in this binary. Add baseline_<name>.cu and "
                 "optimized_<name>.cu to a chNN_<topic>/ folder and rebuild.\n";
    return;
  }
  std::size_t target_width = 0;
  for (const PairInfo& pair : pairs) {
    target_width = std::max(target_width, pair.target.size());
  }
  std::size_t chapters = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const PairInfo& pair = pairs[i];
    const std::string directory = chapter_directory(*pair.baseline);
    if (i == 0 || pairs[i - 1].chapter != pair.chapter) {
      std::cout << (i == 0 ? "" : "\n") << pair.chapter << "  " << display_path(directory) << "/\n";
      ++chapters;
    }
    std::cout << "  " << pair.target << std::string(target_width - pair.target.size() + 2, ' ')
              << relative_to(pair.baseline->source_path, directory) << " -> "
              << relative_to(pair.optimized->source_path, directory) << "\n";
  }
  std::cout << "\n"
            << pairs.size() << (pairs.size() == 1 ? " target" : " targets") << " in " << chapters
            << (chapters == 1 ? " chapter" : " chapters") << ". Run one with `" << program
            << " bench run -t <target>`; a chapter or a pair name selects all of its targets, "
               "=<target> (e.g. -t ="
            << pairs.front().target << ") exactly that one.\n";
}

nlohmann::ordered_json targets_to_json(const std::vector<PairInfo>& pairs) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const PairInfo& pair : pairs) {
    list.push_back(nlohmann::ordered_json{{"target", pair.target},
                                          {"chapter", pair.chapter},
                                          {"folder", pair.baseline->folder},
                                          {"pair", pair.pair},
                                          {"baseline", pair.baseline->stem},
                                          {"optimized", pair.optimized->stem},
                                          {"baseline_source", pair.baseline->source_path},
                                          {"optimized_source", pair.optimized->source_path}});
  }
  return list;
}

int list_targets(const std::string& chapter, bool json, const std::string& program) {
  const Catalog catalog = load_catalog();
  std::vector<PairInfo> pairs = catalog.pairs;
  if (!chapter.empty()) {
    if (chapter.find(':') != std::string::npos) {
      throw UsageError("--chapter " + chapter +
                       ": takes a chapter (chNN, e.g. ch07) or a lab (labs/<lab>), not a target");
    }
    pairs = select_pairs(catalog.pairs, {chapter});
  }
  if (json) {
    std::cout << targets_to_json(pairs).dump(2) << "\n";
  } else {
    print_targets_text(pairs, program);
  }
  return kExitOk;
}

// The hidden `__worker` subcommand's flags, named as worker_argv() writes them
// (worker/worker_request.hpp), and the request they carry.
struct WorkerFlags {
  CLI::App* command = nullptr;
  std::string target;
  std::string settings_json;
  int out_fd = -1;
  bool verify_only = false;
  std::string peaks_dir = artifacts::default_peaks_dir().string();
  std::string profile_variant;  // the Nsight Compute pass (profile/profile_worker.hpp)
  int rank = 0;                 // under mpirun: this rank, the job's size, the reply descriptor
  int rank_count = 0;
  int reply_fd = -1;

  void add_to(CLI::App& app) {
    // An empty group hides it from --help: the orchestrator starts one of these per pair.
    command = app.add_subcommand(std::string(kWorkerCommand), "Run one pair for the orchestrator.");
    command->group("");
    command->add_option(worker_flags::kTarget, target)->required();
    command->add_option(worker_flags::kSettingsJson, settings_json)->required();
    command->add_option(worker_flags::kOutFd, out_fd)->required();
    command->add_flag(worker_flags::kVerifyOnly, verify_only);
    command->add_option(worker_flags::kPeaksDir, peaks_dir);
    command->add_option(worker_flags::kProfileVariant, profile_variant);
    command->add_option(worker_flags::kRank, rank);
    command->add_option(worker_flags::kRankCount, rank_count);
    command->add_option(worker_flags::kReplyFd, reply_fd);
  }

  // The request, checked: throws UsageError naming the flag that is wrong.
  WorkerRequest request() const {
    if (out_fd < 0) {
      throw UsageError(std::string(worker_flags::kOutFd) + " " + std::to_string(out_fd) +
                       ": must be an open file descriptor (>= 0) the orchestrator passed down");
    }
    nlohmann::json parsed;
    try {
      parsed = nlohmann::json::parse(settings_json);
    } catch (const nlohmann::json::exception& error) {  // parse_error, or out_of_range
      throw UsageError(std::string(worker_flags::kSettingsJson) + ": not valid JSON: " +
                       error.what());
    }
    WorkerRequest request;
    try {
      request.settings = measurement_settings_from_json(parsed);
    } catch (const std::invalid_argument& error) {
      throw UsageError(std::string(worker_flags::kSettingsJson) + ": " + error.what());
    }
    if (!profile_variant.empty() && profile_variant != "baseline" &&
        profile_variant != "optimized") {
      throw UsageError(std::string(worker_flags::kProfileVariant) + " " + profile_variant +
                       ": must be baseline or optimized");
    }
    if (rank_count > 1 && (rank < 0 || rank >= rank_count || reply_fd < 0 ||
                           !profile_variant.empty())) {
      throw UsageError(std::string(worker_flags::kRank) + " " + std::to_string(rank) + " " +
                       worker_flags::kRankCount + " " + std::to_string(rank_count) + " " +
                       worker_flags::kReplyFd + " " + std::to_string(reply_fd) +
                       ": a rank below the count and an open reply descriptor, from the "
                       "orchestrator (never with --profile-variant)");
    }
    request.rank = rank_count > 1 ? rank : 0;
    request.rank_count = rank_count > 1 ? rank_count : 0;
    request.target = target;
    request.verify_only = verify_only;
    request.peaks_dir = peaks_dir;
    request.profile_variant = profile_variant;
    return request;
  }

  int run() const {
    const WorkerRequest checked = request();
    return checked.profile_variant.empty() ? run_worker(checked, out_fd, reply_fd)
                                           : run_profile_worker(checked, out_fd);
  }
};

// The innermost subcommand the user named: `bench` for `aisp bench`, `run` for `aisp bench run`.
const CLI::App* innermost_command(const CLI::App& app) {
  const CLI::App* current = &app;
  while (!current->get_subcommands().empty()) {
    current = current->get_subcommands().front();
  }
  return current;
}

std::string command_path(const CLI::App& app, const std::string& program) {
  std::vector<std::string> names;
  for (const CLI::App* current = innermost_command(app); current != &app;
       current = current->get_parent()) {
    names.insert(names.begin(), current->get_name());
  }
  std::string path = program;
  for (const std::string& name : names) {
    path += " " + name;
  }
  return path;
}

// Visible subcommands of a command, for "the commands are: ..." hints.
std::string visible_subcommands(const CLI::App& command) {
  std::string names;
  for (const CLI::App* sub : command.get_subcommands(
           [](const CLI::App* candidate) { return !candidate->get_group().empty(); })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return names;
}

bool has_subcommands(const CLI::App& command) {
  return !command.get_subcommands([](const CLI::App*) { return true; }).empty();
}

// The first of `words` that is a timing setting's flag ("--max-noise" or "--max-noise=0.1") that
// `bench verify` does not take; nullptr when none is.
const RunSettingDescriptor* run_only_setting(const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    const std::string flag = word.substr(0, word.find('='));
    for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
      if (!descriptor.applies_to_verify && flag == descriptor.flag) {
        return &descriptor;
      }
    }
  }
  return nullptr;
}

// A CLI11 parse error as aisp reports it: what is wrong, then where to read the usage.
int report_parse_error(const CLI::App& app, const CLI::ParseError& error,
                       const std::string& program) {
  const CLI::App& command = *innermost_command(app);
  const std::string path = command_path(app, program);
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    const std::vector<std::string> extras = command.remaining();
    std::string words;
    for (const std::string& extra : extras) {
      words += (words.empty() ? "" : " ") + shell_quote(extra);
    }
    if (has_subcommands(command) && !extras.empty() && !extras.front().starts_with("-")) {
      std::cerr << "error: unknown command '" << extras.front() << "'; the commands of `" << path
                << "` are: " << visible_subcommands(command) << ". Run `" << path
                << " --help` for more.\n";
    } else if (const RunSettingDescriptor* setting = run_only_setting(extras);
               setting != nullptr && command.get_name() == "verify") {
      std::cerr << "error: " << setting->flag << " is a setting of `bench run` only: `" << path
                << "` does not time anything. Run `" << path << " --help` to see its flags.\n";
    } else {
      std::cerr << "error: `" << path
                << "` does not take: " << (words.empty() ? error.what() : words) << ". Run `"
                << path << " --help` to see its flags.\n";
    }
    return kExitUsage;
  }
  std::cerr << "error: " << error.what() << ". Run `" << path
            << " --help` to see its commands and flags.\n";
  return kExitUsage;
}

// A command that only groups others (`aisp`, `aisp bench`) called alone: its help, then why.
int missing_command(const CLI::App& app, const std::string& program) {
  const CLI::App& command = *innermost_command(app);
  std::cerr << app.help() << "\nerror: `" << command_path(app, program)
            << "` needs a command: " << visible_subcommands(command) << "\n";
  return kExitUsage;
}

int run_cli_or_throw(int argc, char** argv) {
  const std::string program = program_name(argc, argv);
  CLI::App app("Times, verifies and reports baseline/optimized GPU kernel pairs.", program);
  app.set_version_flag("--version", build_info().version, "Print the version and exit.");
  app.footer("Exit codes: 0 ok, 1 some pair failed (or a damaged input, a file that cannot be "
             "written), 2 usage error (bad flag or value, unknown target or command), 3 internal "
             "error (a bug); 128 + N when signal N interrupted a run "
             "(130: Ctrl-C).\nTargets: chNN, chNN:<name> (a pair, or one target), =chNN:<name> "
             "(exactly one target), labs/<lab>, labs/<lab>:<name>; `" +
             program + " bench list-targets` lists them.");

  CLI::App* bench = app.add_subcommand("bench", "List, run and verify benchmark pairs.");

  CLI::App* list_command = bench->add_subcommand(
      "list-targets", "List every target: its chapter, baseline and optimized source files.");
  std::string list_chapter;
  bool list_json = false;
  list_command->add_option("--chapter", list_chapter, "Only this chapter (ch07 or ch7) or lab.")
      ->type_name("CHAPTER");
  list_command->add_flag("--json", list_json,
                         "Print a JSON array of {target, chapter, folder, pair, baseline, "
                         "optimized, baseline_source, optimized_source}.");

  SuiteCommand run_flags;
  CLI::App* run_command = bench->add_subcommand(
      "run", "Verify and time the selected pairs; write results under --artifacts-dir.");
  run_flags.add_flags(*run_command, false);

  SuiteCommand verify_flags;
  CLI::App* verify_command = bench->add_subcommand(
      "verify", "Only verify the selected pairs (outputs, integrity checks); no timing.");
  verify_flags.add_flags(*verify_command, true);

  ReportCommands report;
  report.add_to(*bench);
  PeakCommands peak;
  peak.add_to(*bench);
  IntegrityCommands integrity;
  integrity.add_to(*bench);

  CLI::App* system = app.add_subcommand("system", "Describe this machine.");
  CLI::App* info_command =
      system->add_subcommand("info", "GPUs, driver, CUDA, clocks, CPU, memory, build.");
  bool info_json = false;
  info_command->add_flag("--json", info_json, "Print JSON instead of text.");

  WorkerFlags worker;
  worker.add_to(app);

  // Hidden: the settings table docs/cli.md embeds (a CLI test compares the two).
  CLI::App* settings_table = app.add_subcommand("__settings-table", "Print the settings table.");
  settings_table->group("");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);  // --help, --version
  } catch (const CLI::ParseError& error) {
    return report_parse_error(app, error, program);
  }

  if (list_command->parsed()) {
    return list_targets(list_chapter, list_json, program);
  }
  if (run_command->parsed()) {
    return run_suite_command(run_flags, false, argc, argv);
  }
  if (verify_command->parsed()) {
    return run_suite_command(verify_flags, true, argc, argv);
  }
  if (info_command->parsed()) {
    const SystemInfo info = collect_system_info();
    std::cout << (info_json ? system_info_to_json(info).dump(2) : format_system_info(info)) << "\n";
    return kExitOk;
  }
  if (worker.command->parsed()) {
    return worker.run();
  }
  if (settings_table->parsed()) {
    std::cout << run_settings_markdown_table();
    return kExitOk;
  }
  if (auto code = report.run_if_parsed()) {
    return *code;
  }
  if (auto code = peak.run_if_parsed()) {
    return *code;
  }
  if (auto code = integrity.run_if_parsed()) {
    return *code;
  }
  return missing_command(app, program);
}

}  // namespace

int run_cli(int argc, char** argv) {
  // A closed stdin, stdout or stderr (`aisp bench run >&-`) would hand its number to the next file
  // opened, and output meant for the terminal would land in results.jsonl: /dev/null takes the
  // place of each closed one first.
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int null_fd = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
      if (null_fd >= 0 && null_fd != fd) {
        dup2(null_fd, fd);
        close(null_fd);
      }
    }
  }
  try {
    return run_cli_or_throw(argc, argv);
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const TargetError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const FileWriteError& error) {
    // The artifacts directory is a file, read-only or full: not a bug, and nothing to measure into.
    std::cerr << "error: " << error.what() << "\n";
    return kExitPairFailed;
  } catch (const std::exception& error) {
    std::cerr << "internal error: " << error.what()
              << "\nThis is a bug in aisp or an environment it did not expect; please report it "
                 "with the command line and this message.\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "internal error: an exception that is not a std::exception\n";
    return kExitInternal;
  }
}

}  // namespace aisp
