// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/direction.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

// Schema 5: an arm that is a worker process (docs/worker-protocol.md). kwb starts it once per arm
// and experiment, drives it over JSON lines, and keeps everything it owns for embedded workloads
// (calibration, order, stopping, verdict). Plain data; the codec is study/worker_spec_json.h, the
// process and the protocol are workloads/worker/.
namespace kwb {

// One parameter the worker described: a default (a number or a string) and, when `values` is not
// empty, the only values it accepts (unlike an embedded workload's listed demo values).
struct WorkerParam {
    std::string name;
    nlohmann::json default_value;
    std::vector<nlohmann::json> values;
    std::string description;
};

struct WorkerMetric {
    std::string name;
    std::string unit;
    Direction direction = Direction::Lower;
};

// What the worker runs on, in its own words (describe's `device`).
struct WorkerDevice {
    std::string kind = "cpu"; // "cuda" or "cpu"
    std::string uuid; // GPUs: "GPU-8c1a..."
    std::string name; // "NVIDIA H200"
    std::optional<int> index;
};

// The answer to `describe` that `kwb new` recorded: what the study was validated against, and
// what the arm diff reads the defaults from.
struct WorkerDescription {
    std::string worker; // hello's name, "triton-matmul"
    std::string version;
    std::vector<WorkerParam> params;
    std::vector<WorkerMetric> metrics; // beyond time_ms
    WorkerDevice device;
    std::string timer = "steady_clock"; // "cuda_events" or "steady_clock"
    bool has_reference = false;

    const WorkerParam* find(const std::string& name) const;
    // {name: default} for every parameter.
    nlohmann::json defaults() const;
};

struct WorkerSpec {
    std::string cmd; // run by /bin/sh -c
    std::string cwd; // empty: where kwb runs
    std::map<std::string, std::string> env; // overrides on top of kwb's environment
    double timeout_s = 600; // of one `time` request (a repetition)
    double max_output_mib = 64; // the cap on the stderr kept in memory
    // The tolerance of the baseline-as-reference check: |t - b| <= atol + rtol * |b|.
    double atol = 1e-5;
    double rtol = 1e-3;
    WorkerDescription description;
};

} // namespace kwb

namespace kwb {

class JsonReader;

// The one codec of a worker arm, for the study file and for the protocol's `describe` answer
// (workloads/worker reads it with the same function, so what the study records is what the worker
// said). Errors throw FormatError naming the field (util/json_reader.h).
nlohmann::json worker_description_json(const WorkerDescription& d);
WorkerDescription worker_description_from(const JsonReader& reader);
nlohmann::json worker_spec_json(const WorkerSpec& w);
WorkerSpec worker_spec_from(const JsonReader& reader);

} // namespace kwb
