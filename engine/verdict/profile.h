// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers around the threshold profiles of spec/verdict.md beyond those declared in verdict.h.
// A profile is a set of numbers plus the rule family it judges with: "generic" (rules 1-7),
// "strict" (rule 5 also needs the CI and Welch's p) and "speedup" (rules 5-6 on the speedup ratio).
// A "custom" profile judges with the family of its base.

#include "verdict/verdict.h"

#include <string_view>

namespace kwb {

// The rule family a profile judges with: "generic", "strict" or "speedup".
std::string_view rule_family(const Profile& profile);

// The keys apply_overrides() accepts, in the order of the spec's table.
const std::vector<std::string>& profile_override_keys();

// The inverse of profile_to_json() (e.g. a profile stored in a study). Throws
// std::invalid_argument on a malformed object.
Profile profile_from_json(const nlohmann::json& j);

} // namespace kwb
