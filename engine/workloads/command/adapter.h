// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/direction.h"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

// Metric adapters: what an external benchmark wrote (its stdout, or the result file `{out}`) read
// into named metrics. Each adapter documents the keys it reads and their units (docs/adapters.md,
// `kwb adapters`). Canonical names keep one definition each, so unlike quantities never share a
// verdict: itl_ms is the gap between streamed chunks, tpot_ms a per-request mean gap (what
// genai-perf calls inter_token_latency).
namespace kwb::command {

// Nothing usable in the output: names what was looked for and what was found instead.
class AdapterError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct KeySpec {
    std::string key; // the tool's own key, e.g. "mean_ttft_ms" or "real_time"
    std::string metric; // the metric it is stored as, e.g. "ttft_ms" (canonical) or the key itself
    std::string unit;
    Direction direction = Direction::Lower;
    std::string description;
};

struct Reading {
    std::map<std::string, double> metrics; // canonical names and the tool's own keys
    std::map<std::string, std::string> fingerprint; // what must match across arms (model, dataset...)
    std::vector<std::string> notes; // what was chosen among several (first state...)
};

class Adapter {
public:
    virtual ~Adapter() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<KeySpec> keys() const = 0;
    // Whether `text` looks like this adapter's format (auto-detection).
    virtual bool detects(const std::string& text) const = 0;
    // Throws AdapterError naming what is missing; never returns a metric it did not read.
    virtual Reading read(const std::string& text) const = 0;
    // Every fingerprint field read() may report (docs/adapters.md): the names `kwb new
    // --expect-differ` accepts.
    virtual std::vector<std::string> fingerprint_fields() const = 0;
};

// The canonical metric names with their units, directions and definitions.
const std::vector<KeySpec>& canonical_metrics();

// The built-in adapters, in detection order. `options` configures those that need it:
// "select" (nvbench, gbench, ncu: a substring of the benchmark/state/kernel to read),
// "map" (keymap: JSON pointer -> {metric, unit, direction}), "patterns" (regex).
std::vector<std::string> adapter_names();
// Throws AdapterError for an unknown name or bad options.
std::unique_ptr<Adapter> make_adapter(const std::string& name, const nlohmann::json& options = {});
// The first adapter that detects `text`; null when none does.
std::unique_ptr<Adapter> detect_adapter(const std::string& text, const nlohmann::json& options = {});

// The fingerprint fields an arm's adapter may report: the named adapter's, or under "auto" every
// adapter's (in detection order, each once). Throws AdapterError for an unknown name or bad options.
std::vector<std::string> fingerprint_fields(const std::string& adapter, const nlohmann::json& options = {});

// Unit and direction of a metric any adapter may produce (documented keys first, then by its
// suffix: *_ms lower, *_tok_s / *throughput higher); nullopt-like spec with empty unit otherwise.
KeySpec metric_spec(const std::string& metric);

// `kwb adapters --json`: every adapter with its keys.
nlohmann::json describe_adapters();

} // namespace kwb::command
