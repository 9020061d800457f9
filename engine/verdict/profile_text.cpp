// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/profile_text.h"

#include "verdict/delta_lines.h"
#include "verdict/wording.h"

namespace kwb {

using wording::num;

std::string profile_rule(const Profile& p)
{
    return fmt::format("n ≥ {} per arm and sigma < {} %; a delta within {} sigma is noise", p.min_n,
        num(p.max_sigma_pct), num(p.noise_k));
}

std::string describe_profile(const Profile& p)
{
    const auto lines = delta_lines(p); // kill, then license
    return fmt::format("Profile {} ({} is better): {}, {}, min n {}, max sigma {} %, unstable above {} %, noise = {} × "
                       "sigma",
        p.name, to_string(p.direction), lines[1].label, lines[0].label, p.min_n, num(p.max_sigma_pct),
        num(p.unstable_sigma_pct), num(p.noise_k));
}

} // namespace kwb
