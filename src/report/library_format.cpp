#include "report/library_format.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace aisp::library_format {
namespace {

namespace rf = report_format;

// "" when the pair should say nothing about its library (none, or not shown).
bool says_anything(const PairResult& pair) {
  if (!pair.library || pair.status != PairStatus::passed) {
    return false;
  }
  return pair.library->role == LibraryRole::reference || rf::shows_library_fraction(pair) ||
         !pair.library->reason.empty();
}

}  // namespace

std::string format_library_note(const PairResult& pair, std::size_t max_reason_chars) {
  if (!says_anything(pair)) {
    return {};
  }
  const LibraryComparison& library = *pair.library;
  if (library.role == LibraryRole::reference) {
    return fmt::format("the {} reference", library.library);
  }
  if (rf::shows_library_fraction(pair)) {
    return fmt::format("{} of {}", rf::format_library_fraction(*library.fraction), library.library);
  }
  return fmt::format("no fraction of {}: {}", library.library,
                     rf::single_line(library.reason, max_reason_chars));
}

std::string library_cell(const PairResult& pair) {
  if (pair.library && pair.library->role == LibraryRole::reference &&
      pair.status == PairStatus::passed) {
    return fmt::format("the {} reference", pair.library->library);
  }
  if (rf::shows_library_fraction(pair)) {
    return fmt::format("{} of {}", rf::format_library_fraction(*pair.library->fraction),
                       pair.library->library);
  }
  return std::string(rf::kAbsent);
}

bool any_library(const RunResults& results) {
  return std::any_of(results.pairs.begin(), results.pairs.end(),
                     [](const PairResult& pair) { return pair.library.has_value(); });
}

std::string render_library_markdown(const RunResults& results) {
  std::string items;
  for (const PairResult& pair : results.pairs) {
    if (!pair.library) {
      continue;
    }
    const LibraryComparison& library = *pair.library;
    std::string item = fmt::format("- **{}** ", pair.target);
    switch (library.role) {
    case LibraryRole::reference:
      item += fmt::format("is the {} reference (`{}`); its speedup is over the baseline as usual",
                          library.library, library.reference_variant);
      break;
    case LibraryRole::baseline:
      item += rf::shows_library_fraction(pair)
                  ? fmt::format("{} of {}: the baseline `{}` is the reference, so this is the "
                                "speedup",
                                rf::format_library_fraction(*library.fraction), library.library,
                                library.reference_variant)
                  : fmt::format("no fraction of {} shown (the pair did not pass with verified "
                                "outputs)",
                                library.library);
      break;
    case LibraryRole::timed:
      if (rf::shows_library_fraction(pair)) {
        item +=
            fmt::format("{} of {}: `{}` {} against `{}` {}, interleaved in one worker",
                        rf::format_library_fraction(*library.fraction), library.library,
                        library.reference_variant,
                        library.reference ? rf::format_duration_ms(library.reference->stats.median)
                                          : std::string(rf::kAbsent),
                        pair.optimized_variant,
                        pair.optimized ? rf::format_duration_ms(pair.optimized->stats.median)
                                       : std::string(rf::kAbsent));
      } else if (!library.reason.empty()) {
        item +=
            fmt::format("no fraction of {}: {}", library.library, rf::single_line(library.reason));
      } else {
        item += fmt::format("no fraction of {} shown (the pair did not pass with verified "
                            "outputs)",
                            library.library);
      }
      break;
    }
    items += item + "\n";
  }
  if (items.empty()) {
    return {};
  }
  return "## Library references\n\nEach target's fraction of its pair's library reference: the "
         "reference's median over the optimized variant's, from samples interleaved in the same "
         "worker (above 100%: faster than the library).\n\n" +
         items;
}

}  // namespace aisp::library_format
