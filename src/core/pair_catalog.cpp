// Pairing variants into targets and resolving the targets a user types. The target grammar:
//
//   chNN                 every pair of a chapter ("ch7" and "ch07" are the same chapter)
//   chNN:<name>          every optimized variant of baseline <name>, or the one target <name>
//   =chNN:<name>         exactly the target <name>, even where <name> is also a pair's name
//   labs/<lab>           every pair of a lab
//   labs/<lab>:<name>    as chNN:<name>, in a lab (and =labs/<lab>:<name>)
//
// Each argument may hold several, separated by commas.
#include "core/pair_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

namespace aisp {
namespace {

constexpr std::string_view kGrammar =
    "a target is chNN (a chapter, e.g. ch07 or ch7), chNN:<name> (a pair's baseline name, or one "
    "optimized variant, e.g. ch07:transpose_padded), =chNN:<name> (exactly that one target), "
    "labs/<lab> or labs/<lab>:<name>";
// The prefix that selects exactly one target: `=ch03:host_transpose`.
constexpr char kExactPrefix = '=';
// How many problems of one selection are spelled out; the rest are counted.
constexpr std::size_t kProblemsShown = 10;
constexpr std::string_view kListHint = "Run `aisp bench list-targets` to see all.";
constexpr std::size_t kSuggestionLimit = 3;

std::string role_prefix(VariantRole role) {
  return role == VariantRole::baseline ? "baseline_" : "optimized_";
}

// Chapters in numeric order (ch7 before ch10 before ch100), then labs by name.
std::tuple<int, std::size_t, std::string> chapter_sort_key(const std::string& chapter) {
  if (chapter.starts_with("ch")) {
    return {0, chapter.size(), chapter};  // equal-width digits compare as text
  }
  return {1, 0, chapter};
}

bool catalog_order(const PairInfo& a, const PairInfo& b) {
  return std::make_tuple(chapter_sort_key(a.chapter), std::cref(a.pair), std::cref(a.target)) <
         std::make_tuple(chapter_sort_key(b.chapter), std::cref(b.pair), std::cref(b.target));
}

// The baseline whose name is the longest prefix of `optimized_name` at a '_' boundary.
const VariantInfo* find_baseline(const std::map<std::string, const VariantInfo*>& baselines,
                                 const std::string& optimized_name) {
  const VariantInfo* best = nullptr;
  for (const auto& [name, baseline] : baselines) {
    const bool matches = optimized_name == name ||
                         (optimized_name.size() > name.size() && optimized_name.starts_with(name) &&
                          optimized_name[name.size()] == '_');
    if (matches && (best == nullptr || name.size() > best->name.size())) {
      best = baseline;
    }
  }
  return best;
}

std::string to_lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return lower;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    previous[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

// A target split into its scope (a normalized chapter or "labs/<lab>") and an optional name.
struct ParsedTarget {
  std::string scope;
  std::optional<std::string> name;
};

[[noreturn]] void throw_malformed(const std::string& target, std::string_view why) {
  throw TargetError("malformed target '" + target + "': " + std::string(why) + "; " +
                    std::string(kGrammar) + ". " + std::string(kListHint));
}

bool is_all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Returns nullopt for a bare word ("transpose") so the caller can suggest qualified names.
std::optional<ParsedTarget> parse_target(const std::string& target) {
  if (target.empty()) {
    throw_malformed(target, "it is empty");
  }
  const std::size_t colon = target.find(':');
  const std::string scope = target.substr(0, colon);
  ParsedTarget parsed;
  if (colon != std::string::npos) {
    std::string name = target.substr(colon + 1);
    if (scope.empty()) {
      throw_malformed(target, "the chapter before ':' is missing");
    }
    if (name.empty()) {
      throw_malformed(target, "the name after ':' is missing");
    }
    if (name.find(':') != std::string::npos || name.find('/') != std::string::npos) {
      throw_malformed(target, "the name after ':' may not contain ':' or '/'");
    }
    parsed.name = std::move(name);
  }
  if (scope.starts_with("labs/")) {
    const std::string lab = scope.substr(5);
    if (lab.empty() || lab.find('/') != std::string::npos) {
      throw_malformed(target, "a lab is named labs/<lab>, one folder under labs/");
    }
    parsed.scope = scope;
    return parsed;
  }
  if (scope.starts_with("ch") && is_all_digits(std::string_view(scope).substr(2))) {
    parsed.scope = *chapter_of_folder(scope);
    return parsed;
  }
  if (std::optional<std::string> chapter = chapter_of_folder(scope)) {
    throw_malformed(target, "write the chapter as " + *chapter);
  }
  if (colon == std::string::npos && scope != "labs") {
    return std::nullopt;
  }
  throw_malformed(target, "'" + scope + "' is not a chapter (chNN) or a lab (labs/<lab>)");
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string joined;
  for (const std::string& item : items) {
    if (!joined.empty()) {
      joined += separator;
    }
    joined += item;
  }
  return joined;
}

std::string suggestion_sentence(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) {
    return "";
  }
  return "; did you mean: " + join(suggestions, ", ") + "?";
}

// Every string select_pairs accepts: chapters, "scope:pair" and "scope:target-name".
std::vector<std::string> known_target_strings(const std::vector<PairInfo>& catalog) {
  std::vector<std::string> known;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (seen.insert(name).second) {
      known.push_back(name);
    }
  };
  for (const PairInfo& pair : catalog) {
    add(pair.chapter);
  }
  for (const PairInfo& pair : catalog) {
    add(pair.chapter + ":" + pair.pair);
    add(pair.target);
  }
  return known;
}

[[noreturn]] void throw_unknown(const std::string& target, const std::string& normalized,
                                const std::vector<PairInfo>& catalog) {
  if (catalog.empty()) {
    throw TargetError("unknown target '" + target +
                      "': this binary has no pairs registered; build the chapters (or your "
                      "project's pair folders) into it");
  }
  const std::vector<std::string> suggestions =
      closest_names(normalized, known_target_strings(catalog), kSuggestionLimit);
  throw TargetError("unknown target '" + target + "'" + suggestion_sentence(suggestions) + " " +
                    std::string(kListHint));
}

// A bare word: suggest chapters close to it, and qualified targets whose name part is.
[[noreturn]] void throw_unqualified(const std::string& target,
                                    const std::vector<PairInfo>& catalog) {
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> qualified_by_name;
  for (const std::string& known : known_target_strings(catalog)) {
    const std::size_t colon = known.find(':');
    const std::string name = colon == std::string::npos ? known : known.substr(colon + 1);
    if (!qualified_by_name.contains(name)) {
      names.push_back(name);
    }
    qualified_by_name[name].push_back(known);
  }
  std::vector<std::string> suggestions;
  for (const std::string& name : closest_names(target, names, kSuggestionLimit)) {
    for (const std::string& qualified : qualified_by_name[name]) {
      if (suggestions.size() < kSuggestionLimit) {
        suggestions.push_back(qualified);
      }
    }
  }
  throw TargetError("malformed target '" + target + "': it names no chapter (" +
                    std::string(kGrammar) + ")" + suggestion_sentence(suggestions) + " " +
                    std::string(kListHint));
}

// "note: ch03:host_transpose names a pair: it selects 2 targets (ch03:host_transpose,
// ch03:host_transpose_threads); -t =ch03:host_transpose selects that one target alone"
std::string fmt_pair_note(const std::string& target, const std::vector<std::string>& pair_targets) {
  return target + " names a pair: it selects " + std::to_string(pair_targets.size()) +
         " targets (" + join(pair_targets, ", ") + "); -t " + kExactPrefix + target +
         " selects that one target alone";
}

}  // namespace

std::vector<PairInfo> build_pair_catalog(const std::vector<VariantInfo>& variants,
                                         std::vector<std::string>* problems) {
  auto report = [problems](std::string problem) {
    if (problems != nullptr) {
      problems->push_back(std::move(problem));
    }
  };

  // chapter -> baseline name -> variant; the first registration of a name wins.
  std::map<std::string, std::map<std::string, const VariantInfo*>> baselines;
  std::map<std::string, std::map<std::string, const VariantInfo*>> optimized;
  for (const VariantInfo& variant : variants) {
    auto& by_name =
        (variant.role == VariantRole::baseline ? baselines : optimized)[variant.chapter];
    auto [existing, inserted] = by_name.emplace(variant.name, &variant);
    if (!inserted) {
      report(variant.chapter + ": " + role_prefix(variant.role) + variant.name +
             " is registered twice ('" + existing->second->source_path + "' and '" +
             variant.source_path +
             "'); keep one AISP_VARIANT per file and one file of that name per chapter");
    }
  }

  std::vector<PairInfo> catalog;
  std::set<const VariantInfo*> paired_baselines;
  for (const auto& [chapter, by_name] : optimized) {
    for (const auto& [name, variant] : by_name) {
      const VariantInfo* baseline = find_baseline(baselines[chapter], name);
      if (baseline == nullptr) {
        report(chapter + ": optimized_" + name + " ('" + variant->source_path +
               "') has no baseline; add baseline_<pair>.cu beside it, where <pair> is " + name +
               " or a prefix of it ending before a '_'");
        continue;
      }
      paired_baselines.insert(baseline);
      catalog.push_back(PairInfo{chapter + ":" + name, chapter, baseline->name, baseline, variant});
    }
  }
  for (const auto& [chapter, by_name] : baselines) {
    for (const auto& [name, baseline] : by_name) {
      if (!paired_baselines.contains(baseline)) {
        report(chapter + ": baseline_" + name + " ('" + baseline->source_path +
               "') has no optimized variant; add optimized_" + name + ".cu or optimized_" + name +
               "_<suffix>.cu beside it");
      }
    }
  }
  std::sort(catalog.begin(), catalog.end(), catalog_order);
  return catalog;
}

std::vector<std::string> split_target_arguments(const std::vector<std::string>& arguments) {
  std::vector<std::string> targets;
  for (const std::string& argument : arguments) {
    if (argument.find(',') == std::string::npos) {
      targets.push_back(argument);  // an empty one is refused by select_pairs, naming it
      continue;
    }
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = argument.find(',', start);
      const std::string item = argument.substr(start, comma - start);
      if (item.empty()) {
        throw TargetError("malformed target list '" + argument +
                          "': an empty target before or after a comma; separate targets with "
                          "single commas (ch07,ch03) or repeat -t. " +
                          std::string(kListHint));
      }
      targets.push_back(item);
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
  }
  return targets;
}

std::vector<PairInfo> select_pairs(const std::vector<PairInfo>& catalog,
                                   const std::vector<std::string>& arguments,
                                   std::vector<std::string>* notes) {
  if (arguments.empty()) {
    return catalog;
  }
  const std::vector<std::string> targets = split_target_arguments(arguments);
  std::vector<bool> selected(catalog.size(), false);
  // Every wrong target is reported, not only the first: a list pasted from elsewhere shows all
  // its mistakes at once. Suggestions cost a pass over the catalog each, so only the first few
  // problems get them; the others are counted.
  std::vector<std::string> problems;
  std::size_t unreported = 0;
  for (const std::string& target : targets) {
    const bool report = problems.size() < kProblemsShown;
    try {
      const bool exact = !target.empty() && target.front() == kExactPrefix;
      const std::string typed = exact ? target.substr(1) : target;
      if (exact && typed.empty()) {
        throw_malformed(target, "'=' selects exactly one target: write =chNN:<name> (e.g. "
                                "=ch07:transpose_padded)");
      }
      const std::optional<ParsedTarget> parsed = parse_target(typed);
      if (!parsed) {
        if (!report)
          throw TargetError("");
        throw_unqualified(typed, catalog);
      }
      if (exact && !parsed->name) {
        throw_malformed(target, "'=' selects exactly one target: write =chNN:<name> (e.g. "
                                "=ch07:transpose_padded)");
      }
      bool matched = false;
      std::vector<std::string> pair_targets;
      for (std::size_t i = 0; i < catalog.size(); ++i) {
        const PairInfo& pair = catalog[i];
        if (pair.chapter != parsed->scope) {
          continue;
        }
        const std::string_view target_name =
            std::string_view(pair.target).substr(pair.chapter.size() + 1);
        const bool hit =
            !parsed->name || *parsed->name == target_name || (!exact && *parsed->name == pair.pair);
        if (hit) {
          selected[i] = true;
          matched = true;
          if (parsed->name && *parsed->name == pair.pair)
            pair_targets.push_back(pair.target);
        }
      }
      if (!matched) {
        if (!report)
          throw TargetError("");
        throw_unknown(target, parsed->name ? parsed->scope + ":" + *parsed->name : parsed->scope,
                      catalog);
      }
      // chNN:<name> naming both a pair and one of its targets selects the whole pair: say so, and
      // how to select the one target alone.
      const std::string one = parsed->scope + ":" + parsed->name.value_or("");
      if (notes != nullptr && !exact && pair_targets.size() > 1 &&
          std::find(pair_targets.begin(), pair_targets.end(), one) != pair_targets.end()) {
        notes->push_back(fmt_pair_note(one, pair_targets));
      }
    } catch (const TargetError& error) {
      if (report) {
        problems.push_back(error.what());
      } else {
        ++unreported;
      }
    }
  }
  if (!problems.empty()) {
    std::string message = problems.front();
    for (std::size_t i = 1; i < problems.size(); ++i) {
      message += "\nerror: " + problems[i];
    }
    if (unreported > 0) {
      message += "\nerror: ... and " + std::to_string(unreported) + " more wrong target" +
                 (unreported == 1 ? "" : "s") + " (" +
                 std::to_string(problems.size() + unreported) + " in all)";
    }
    throw TargetError(message);
  }
  std::vector<PairInfo> selection;
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    if (selected[i]) {
      selection.push_back(catalog[i]);
    }
  }
  return selection;
}

std::vector<DeclaredLibraryReference>
declared_library_references(const std::vector<PairInfo>& catalog, const PairInfo& pair,
                            std::vector<std::string>* problems) {
  std::vector<const VariantInfo*> members{pair.baseline};
  for (const PairInfo& other : catalog)
    if (other.chapter == pair.chapter && other.baseline == pair.baseline)
      members.push_back(other.optimized);
  if (std::find(members.begin(), members.end(), pair.optimized) == members.end())
    members.push_back(pair.optimized);  // a pair outside `catalog` still counts itself
  std::vector<DeclaredLibraryReference> declared;
  for (const VariantInfo* member : members) {
    if (member == nullptr || !member->factory)
      continue;
    try {
      const std::unique_ptr<Benchmark> instance = member->factory();
      std::string library = instance ? instance->library_reference() : std::string();
      if (!library.empty())
        declared.push_back({member, std::move(library)});
    } catch (const Unavailable&) {
      // It cannot run on this machine, so it is timed nowhere here: no declaration to count.
    } catch (const std::exception& error) {
      if (problems != nullptr)
        problems->push_back(member->stem +
                            ": constructing it to ask library_reference() threw: " + error.what());
    }
  }
  return declared;
}

std::vector<std::string> closest_names(const std::string& unknown,
                                       const std::vector<std::string>& known, std::size_t limit) {
  const std::string wanted = to_lower(unknown);
  const std::size_t max_distance = std::max<std::size_t>(2, wanted.size() / 3);
  // (distance, name): names within the edit budget, and names the input is a prefix of (the user
  // typed a name only part-way), nearest first.
  std::vector<std::pair<std::size_t, std::string>> candidates;
  for (const std::string& name : known) {
    const std::string lower = to_lower(name);
    const std::size_t distance = edit_distance(wanted, lower);
    const bool is_prefix = !wanted.empty() && lower.starts_with(wanted);
    if (distance <= max_distance || is_prefix) {
      candidates.emplace_back(distance, name);
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (auto& candidate : candidates) {
    if (names.size() == limit) {
      break;
    }
    names.push_back(std::move(candidate.second));
  }
  return names;
}

}  // namespace aisp
