// Command lines as a shell reads them: the one quoting rule every place that shows or runs a
// command uses (the manifest's command line, the CLI's messages, the profiler's ncu commands, the
// git probe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace aisp {

// `word` as one shell word: unchanged when it is made only of characters no shell treats
// specially (letters, digits and _@%+=:,./-), else in single quotes with each ' written '\''.
// The empty word is ''.
std::string shell_quote(std::string_view word);

// The words as one command line that pastes back into a shell: each shell_quote'd, joined by
// spaces.
std::string shell_join(const std::vector<std::string>& words);

}  // namespace aisp
