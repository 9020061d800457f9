// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The report's A/A section (docs/report.md, "A/A"): each experiment's real A/A as the study stored
// it, and the per-device A/A history attached beside it (report_model.h attach_aa_history).

#include "report/report_model.h"

#include <optional>

namespace kwb::report {

// The experiment's A/A arm and its stored verdict; nullopt when it has no A/A arm.
std::optional<AaReport> aa_report(const Study& study, const Experiment& e);

} // namespace kwb::report
