// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one place a verdict becomes JSON and JSON becomes a verdict. The sample verdict's object is
// exactly `kwb verdict --json` (spec/verdict.md); the final verdict's is the study's
// "final_verdict" (docs/study-format.md). Both round-trip: reading what was written gives the same
// struct, and writing it again gives the same JSON.

#include "verdict/verdict_types.h"

#include <nlohmann/json.hpp>

namespace kwb {

nlohmann::json to_json(const SampleVerdict& verdict);
nlohmann::json to_json(const FinalVerdict& verdict);
// The final verdict's "gpu_sharing" and "cycles" entries (null when absent), also for the report.
nlohmann::json to_json(const std::optional<GpuSharingSummary>& sharing);
nlohmann::json to_json(const std::optional<CyclesComparison>& cycles);

// Missing keys take their defaults (null numbers); a present key of the wrong type throws
// kwb::FormatError naming `path` and the field, e.g. "experiments[0].verdict.delta_pct".
SampleVerdict sample_verdict_from_json(const nlohmann::json& j, const std::string& path = "verdict");
FinalVerdict final_verdict_from_json(const nlohmann::json& j, const std::string& path = "final_verdict");

} // namespace kwb
