// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/aa_history.h"
#include "run/progress_line.h"
#include "run/run_observer.h"
#include "study/study.h"

#include <optional>
#include <string>

// The events of the progress stream (docs/progress-stream.md), each built in one place: `kwb run`'s
// writer sends them, the --devices parent relays them with a "device" key, and the window reads
// them (widgets/models/stream_parser.h). progress::line() writes any of them as a line.
namespace kwb::progress {

// `unit` and `direction` of the experiment's metric (the workload's); `at` the start's UTC time.
nlohmann::json start_event(const std::string& study, const Experiment& experiment, const RunStart& start,
    const std::string& unit, const std::string& direction, const std::string& at);
nlohmann::json sample_event(const Experiment& experiment, const Sample& sample, double t_s);
nlohmann::json metric_event(const MetricReading& reading);
nlohmann::json progress_event(const Experiment& experiment, const RunProgress& progress);
nlohmann::json verdict_event(const Experiment& experiment);
nlohmann::json aa_history_event(
    const Experiment& experiment, const std::optional<AaFalseAlarmRate>& rate, const std::string& problem);
// `remedy`, when not null, is what would let the run go: {"kind": "remote-install", "host": H} says
// `kwb remote install H` would (the remote kwb is missing or another version), so a reader such as
// the window can offer it without reading the message.
nlohmann::json error_event(const std::string& message, bool continues, const nlohmann::json& remedy = nullptr);

} // namespace kwb::progress
