// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/verdict.h"

#include <string>

// A profile's rules in words, from its own numbers: the verdict page and the report say what the
// verdict was judged by, never a copy of the default numbers that a custom profile would belie.
namespace kwb {

// "n ≥ 3 per arm and sigma < 5 %; a delta within 2 sigma is noise"
std::string profile_rule(const Profile& profile);

// "Profile generic (lower is better): license ≥ 10 %, kill < 5 %, min n 3, max sigma 5 %, unstable
// above 10 %, noise = 2 × sigma"; the speedup family names its ratios ("license ≥ 5× speedup").
std::string describe_profile(const Profile& profile);

} // namespace kwb
