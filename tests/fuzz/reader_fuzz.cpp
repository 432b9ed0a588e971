// A bounded, deterministic fuzz test of every reader of what a run leaves behind: results.json,
// results.jsonl, manifest.json, quarantine.json and an expectations file. It starts from a real
// run (tests/data/run_h200_ch01, plus the results.jsonl, quarantine.json and expectations file
// made from it), writes mutated copies of one file at a time (numbers beyond double range, wrong
// types, flipped bytes, cut or repeated spans, deep nesting, invalid UTF-8) and runs the commands
// that read it through the real command line, in process (run_cli): `bench report`,
// `bench compare-runs`, `bench quarantine-report`, `bench expectations`.
//
// Every case must end with a documented exit code (0, 1 or 2; never 3, "a bug in aisp"), and a
// case that fails must say which file. Run under ASan/UBSan (scripts/fuzz-sanitized.sh) it also
// proves that no input reads out of bounds or overflows. A case that breaks a rule is kept under
// <work>/failures/ with the command and its stderr; the case being run is always in
// <work>/current/ (a crash leaves it there).
//
//   aisp_reader_fuzz <run dir> <work dir> <cases> [<seed>]
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "policy/expectations.hpp"
#include "policy/quarantine.hpp"
#include "results/results_json.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The files a mutation targets, by where they live in a run directory (or the chapters folder).
enum class Kind { results_json, results_jsonl, manifest, quarantine, expectations };
constexpr const char* kKindNames[] = {"results.json", "results.jsonl", "manifest.json",
                                      "quarantine.json", "expectations h200.json"};
constexpr const char* kChapterFolder = "ch01_performance_basics";

fs::path file_of(const fs::path& run, Kind kind) {
  switch (kind) {
  case Kind::results_json:
    return run / "results.json";
  case Kind::results_jsonl:
    return run / "results.jsonl";
  case Kind::manifest:
    return run / "manifest.json";
  case Kind::quarantine:
    return run / "quarantine.json";
  case Kind::expectations:
    return run / "chapters" / kChapterFolder / "expectations" / "h200.json";
  }
  return run;
}

// The seed run: the real run's files, and the derived ones its readers also take.
void build_seed(const fs::path& source, const fs::path& seed) {
  fs::create_directories(seed);
  for (const char* name : {"results.json", "manifest.json", "summary.md"})
    fs::copy_file(source / name, seed / name, fs::copy_options::overwrite_existing);
  const aisp::RunResults results = aisp::load_run_results(seed / "results.json");
  std::string lines;
  for (const aisp::PairResult& pair : results.pairs)
    lines += aisp::to_json_line(pair) + "\n";
  write_file(seed / "results.jsonl", lines);

  aisp::QuarantineFile quarantine;
  quarantine.run_id = results.run_id;
  quarantine.verify_phase = aisp::VerifyPhase::quarantine;
  for (aisp::PairResult pair : results.pairs) {
    pair.status = aisp::PairStatus::quarantined;
    pair.reason = "quarantined (--verify-phase quarantine): within_tolerance: 3 of 1024 elements";
    pair.verification.checks.push_back({"within_tolerance", false, "3 of 1024 elements differ"});
    pair.verification.passed = false;
    quarantine.entries.push_back(aisp::make_quarantine_entry(
        pair, aisp::VerifyPhase::quarantine, results.run_id, "2d26c8c", "2026-11-22T00:04:26Z"));
  }
  aisp::write_json_atomically(seed / "quarantine.json", aisp::quarantine_to_json(quarantine));

  aisp::ExpectationProvenance provenance;
  provenance.gpu = "NVIDIA H200";
  provenance.git_commit = "2d26c8c";
  provenance.date = "2026-11-22";
  provenance.run_id = results.run_id;
  const fs::path chapter = seed / "chapters" / kChapterFolder;
  fs::create_directories(chapter);
  aisp::update_expectations(results, {{"ch01", chapter}}, "h200", provenance);
}

// ---- mutations

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : random_(seed) {}

  std::size_t below(std::size_t n) { return n == 0 ? 0 : random_() % n; }

  std::string mutate(std::string text) {
    const std::size_t count = 1 + below(3);
    for (std::size_t i = 0; i < count; ++i)
      text = mutate_once(std::move(text));
    return text;
  }

 private:
  // Positions where a JSON number starts (a digit or '-' after ':', '[', ',' or space).
  std::vector<std::pair<std::size_t, std::size_t>> tokens(const std::string& text, bool numbers) {
    std::vector<std::pair<std::size_t, std::size_t>> found;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (numbers && (std::isdigit(static_cast<unsigned char>(c)) || c == '-') && i > 0 &&
          (text[i - 1] == ':' || text[i - 1] == ' ' || text[i - 1] == '[' || text[i - 1] == ',')) {
        std::size_t end = i + 1;
        while (end < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                text[end] == 'e' || text[end] == 'E' || text[end] == '-' || text[end] == '+'))
          ++end;
        found.emplace_back(i, end);
        i = end;
      } else if (!numbers && c == '"') {
        std::size_t end = i + 1;
        while (end < text.size() && text[end] != '"')
          end += text[end] == '\\' ? 2 : 1;
        if (end < text.size())
          found.emplace_back(i, end + 1);
        i = end;
      }
    }
    return found;
  }

  std::string replace_token(const std::string& text, bool numbers,
                            const std::vector<std::string>& choices) {
    const auto found = tokens(text, numbers);
    if (found.empty())
      return text;
    const auto [begin, end] = found[below(found.size())];
    return text.substr(0, begin) + choices[below(choices.size())] + text.substr(end);
  }

  std::string mutate_once(std::string text) {
    static const std::vector<std::string> kNumbers = {"1e400",       "-1e400",
                                                      "1e-400",      "1e308",
                                                      "-1e308",      "99999999999999999999999",
                                                      "-0",          "0",
                                                      "-1",          "1",
                                                      "4294967296",  "2147483648",
                                                      "-2147483649", "9223372036854775808",
                                                      "0.5",         "\"2\"",
                                                      "null",        "[]",
                                                      "{}",          "true",
                                                      "\"\"",        "1e",
                                                      "--1",         "01"};
    static const std::vector<std::string> kStrings = {"\"\"",
                                                      "\"nan\"",
                                                      "\"inf\"",
                                                      "\"passed\"",
                                                      "\"failed\"",
                                                      "\"skipped\"",
                                                      "\"gate\"",
                                                      "\"quarantine\"",
                                                      "\"detect\"",
                                                      "\"faster\"",
                                                      "\"graph_replay\"",
                                                      "\"host_clock\"",
                                                      "\"ch01:x\"",
                                                      "\"\\u0000\"",
                                                      "\"\xff\xfe\"",
                                                      "\"<script>alert(1)</script>\"",
                                                      "1e400",
                                                      "null",
                                                      "0",
                                                      "[]",
                                                      "{}",
                                                      "\"" + std::string(10000, 'a') + "\""};
    const std::size_t size = text.size();
    switch (below(9)) {
    case 0:
    case 1:
      return replace_token(text, true, kNumbers);
    case 2:
      return replace_token(text, false, kStrings);
    case 3:  // a byte changed
      if (size > 0)
        text[below(size)] = static_cast<char>(below(256));
      return text;
    case 4: {  // a span cut out
      const std::size_t at = below(size);
      return text.erase(at, 1 + below(64));
    }
    case 5: {  // a span repeated
      const std::size_t at = below(size);
      const std::size_t length = std::min<std::size_t>(1 + below(200), size - at);
      return text.insert(at, text.substr(at, length));
    }
    case 6:
      return text.substr(0, below(size + 1));  // cut short
    case 7: {                                  // a value replaced by deep nesting
      const std::size_t depth = 1 + below(2000);
      return replace_token(text, true, {std::string(depth, '[') + std::string(depth, ']')});
    }
    default: {  // structural: a key removed or a value of another type, through the parser
      nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
      if (value.is_discarded())
        return text;
      std::vector<nlohmann::json*> nodes;
      collect(value, nodes);
      nlohmann::json* node = nodes[below(nodes.size())];
      if (node->is_object() && !node->empty() && below(2) == 0) {
        auto it = node->begin();
        std::advance(it, static_cast<long>(below(node->size())));
        node->erase(it.key());
      } else {
        static const nlohmann::json kValues[] = {
            nullptr, nlohmann::json::array(), nlohmann::json::object(), true, "x", -1, 1.5};
        *node = kValues[below(std::size(kValues))];
      }
      return value.dump(below(2) == 0 ? -1 : 2);
    }
    }
  }

  static void collect(nlohmann::json& value, std::vector<nlohmann::json*>& nodes) {
    nodes.push_back(&value);
    if (value.is_structured())
      for (auto& child : value)
        collect(child, nodes);
  }

  std::mt19937_64 random_;
};

// ---- running a command in process

struct CommandResult {
  int exit_code = 0;
  std::string stderr_text;
};

CommandResult run_command(const std::vector<std::string>& words, const fs::path& scratch) {
  std::vector<std::string> args = {"aisp"};
  args.insert(args.end(), words.begin(), words.end());
  std::vector<char*> argv;
  for (std::string& arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);

  const fs::path err_path = scratch / "stderr.txt";
  std::fflush(stdout);
  std::fflush(stderr);
  std::cout.flush();
  std::cerr.flush();
  const int saved_out = dup(STDOUT_FILENO);
  const int saved_err = dup(STDERR_FILENO);
  const int null_fd = open("/dev/null", O_WRONLY);
  const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(null_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  CommandResult result;
  result.exit_code = aisp::run_cli(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  std::cout.flush();
  std::cerr.flush();
  dup2(saved_out, STDOUT_FILENO);
  dup2(saved_err, STDERR_FILENO);
  for (const int fd : {saved_out, saved_err, null_fd, err_fd})
    close(fd);
  result.stderr_text = read_file(err_path);
  return result;
}

std::string join(const std::vector<std::string>& words) {
  std::string text = "aisp";
  for (const std::string& word : words)
    text += " '" + word + "'";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: aisp_reader_fuzz <run dir> <work dir> <cases> [<seed>]\n";
    return 2;
  }
  const fs::path source = argv[1];
  const fs::path work = argv[2];
  const long cases = std::strtol(argv[3], nullptr, 10);
  const std::uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 20261123;
  fs::remove_all(work);
  const fs::path base = work / "seed";
  build_seed(source, base);
  const fs::path current = work / "current";
  const fs::path failures = work / "failures";

  // The unmutated seed must read cleanly: otherwise every case would fail for the wrong reason.
  const fs::path chapters = base / "chapters";
  for (const auto& words : std::vector<std::vector<std::string>>{
           {"bench", "report", base.string(), "--output", (work / "seed.html").string()},
           {"bench", "quarantine-report", base.string()},
           {"bench", "expectations", "--hardware", "h200", "--chapters-dir", chapters.string()}}) {
    const CommandResult result = run_command(words, work);
    if (result.exit_code != 0) {
      std::cerr << "the seed run does not read cleanly: " << join(words) << " exited "
                << result.exit_code << ":\n"
                << result.stderr_text;
      return 1;
    }
  }

  Mutator mutator(seed);
  int broken = 0;
  long exits[4] = {0, 0, 0, 0};
  for (long i = 0; i < cases; ++i) {
    const Kind kind = static_cast<Kind>(mutator.below(5));
    fs::remove_all(current);
    fs::copy(base, current, fs::copy_options::recursive);
    if (kind == Kind::results_jsonl)
      fs::remove(current / "results.json");  // read the stream
    const fs::path target = file_of(current, kind);
    write_file(target, mutator.mutate(read_file(file_of(base, kind))));

    std::vector<std::vector<std::string>> commands;
    const std::string run = current.string();
    switch (kind) {
    case Kind::results_json:
    case Kind::results_jsonl:
    case Kind::manifest:
      commands = {
          {"bench", "report", run, "--output", (current / "report.html").string()},
          {"bench", "compare-runs", "--baseline", base.string(), "--candidate", run},
          {"bench", "compare-runs", "--baseline", run, "--candidate", base.string(), "--json"}};
      break;
    case Kind::quarantine:
      commands = {{"bench", "quarantine-report", run},
                  {"bench", "quarantine-report", run, "--json"}};
      break;
    case Kind::expectations:
      commands = {{"bench", "expectations", "--hardware", "h200", "--chapters-dir",
                   (current / "chapters").string()},
                  {"bench", "expectations", "--hardware", "h200", "--min-speedup", "1", "--json",
                   "--chapters-dir", (current / "chapters").string()}};
      break;
    }
    for (const auto& words : commands) {
      const CommandResult result = run_command(words, work);
      const std::string file_name = target.filename().string();
      std::string problem;
      if (result.exit_code < 0 || result.exit_code > 2) {
        problem = "exit code " + std::to_string(result.exit_code) +
                  " (only 0, 1 and 2 are "
                  "documented for a damaged input)";
      } else if (result.exit_code != 0 && result.stderr_text.find(file_name) == std::string::npos) {
        problem = "exit code " + std::to_string(result.exit_code) + " without naming " + file_name;
      }
      ++exits[std::min(result.exit_code, 3)];
      if (!problem.empty()) {
        ++broken;
        const fs::path kept = failures / std::to_string(i);
        fs::create_directories(kept);
        fs::copy(current, kept, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        write_file(kept / "command.txt", join(words) + "\n");
        write_file(kept / "stderr.txt", result.stderr_text);
        std::cout << "FAIL case " << i << " (" << kKindNames[static_cast<int>(kind)]
                  << "): " << problem << "\n  " << join(words) << "\n  "
                  << result.stderr_text.substr(0, 400) << "  kept in " << kept << "\n";
      }
    }
  }
  std::cout << "aisp_reader_fuzz: " << cases << " mutated files (seed " << seed << "), commands "
            << "exited 0: " << exits[0] << ", 1: " << exits[1] << ", 2: " << exits[2]
            << ", 3 or more: " << exits[3] << "; " << broken << " broke a rule\n";
  return broken == 0 ? 0 : 1;
}
