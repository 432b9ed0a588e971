// The names of the enums of aisp/result.hpp, as results.json, the CLI and every report spell them
// (pair_status_name() and the other *_name functions are declared in aisp/result.hpp), and their
// inverses. One table per enum, in result_names.cpp, so a name is written once.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "aisp/result.hpp"

namespace aisp {

// Inverses of the *_name functions; nullopt for a name this build does not know.
std::optional<PairStatus> parse_pair_status(std::string_view name);
std::optional<TimingMethod> parse_timing_method(std::string_view name);
std::optional<VerifyPhase> parse_verify_phase(std::string_view name);
std::optional<ProfileStatus> parse_profile_status(std::string_view name);
std::optional<LibraryRole> parse_library_role(std::string_view name);

// Every name of the enum, in declaration order, for messages: "detect, quarantine, gate".
std::string pair_status_choices();
std::string timing_method_choices();
std::string verify_phase_choices();
std::string profile_status_choices();
std::string library_role_choices();

}  // namespace aisp
