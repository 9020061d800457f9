// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Datasheet peaks beside measured ceilings (`kwb calibrate`, hardware/ceilings.h), one row per
// quantity, with the measured value's n and spread and its share of the datasheet figure. One
// owner for "% of the datasheet peak": kwb devices and the hardware page both print these rows.
namespace kwb {

struct MeasuredCeiling {
    double median = 0;
    int n = 0;
    double min = 0, max = 0;
    double cv_pct = 0;
    std::string how; // the shape it was measured on, e.g. "cudaMemcpyAsync device to device, 1 GiB..."
};

struct PeakRow {
    std::string quantity; // "BF16 tensor (dense)"
    std::string unit; // "TFLOP/s"
    std::optional<double> datasheet;
    std::optional<MeasuredCeiling> measured;
    std::optional<double> pct_of_datasheet; // 100 * measured median / datasheet
};

// `catalogue`: a catalogue entry (GpuPart::to_json shape) or null; `measured`: a device's stored
// ceilings (the "measured" object of kwb devices --json) or null. Rows with neither are left out.
std::vector<PeakRow> peak_rows(const nlohmann::json& catalogue, const nlohmann::json& measured);

} // namespace kwb
