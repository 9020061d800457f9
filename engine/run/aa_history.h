// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <array>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

// The per-device A/A history: every finished real A/A (the "aa" arm, verdict/aa_verdict.h)
// appends one JSON line (device, study, n, word, delta) to
// $XDG_STATE_HOME/kernel-workbench/aa-history.jsonl (~/.local/state when XDG_STATE_HOME is unset
// or relative). Over every A/A run on one device model (study/device_identity.h's "same device")
// the share that was not NOISE is that machine's false-alarm rate at the n the studies used,
// reported with its exact (Clopper-Pearson) 95% interval: a handful of A/As gives a wide one, and
// saying so is the point.
//
// Appends are serialised by a lock file beside the history and are one write each (a reader never
// sees half a line); the file is bounded: past max_entries the oldest lines go, the file being
// replaced atomically.
namespace kwb {

inline constexpr std::size_t kAaHistoryMaxEntries = 10'000;

struct AaHistoryEntry {
    std::string at; // ISO 8601 UTC
    DeviceIdentity device;
    std::string study; // the study file's path as given to kwb run
    std::string experiment;
    int n = 0; // runs per arm the A/A was judged on
    std::string word; // LICENSE, KILL, NOISE, INCONCLUSIVE
    std::optional<double> delta_pct;
};

struct AaFalseAlarmRate {
    std::string device; // the model
    int runs = 0;
    int false_alarms = 0; // runs whose word was not NOISE
    double rate = 0;
    std::array<double, 2> ci95 {0, 1}; // Clopper-Pearson, as proportions
};

// The history file under the XDG state directory (not created).
std::filesystem::path aa_history_path();

// The entry of an experiment whose A/A arm was judged; nullopt when it has no aa_verdict.
std::optional<AaHistoryEntry> aa_history_entry(const std::string& study, const Experiment& e);

// Appends one entry (creating the directory); throws std::runtime_error naming the path.
void append_aa_history(
    const std::filesystem::path& path, const AaHistoryEntry& entry, std::size_t max_entries = kAaHistoryMaxEntries);

// Every readable entry, oldest first; a missing file is an empty history, and a line that does
// not parse (a foreign edit) is skipped and counted in `skipped` when given.
std::vector<AaHistoryEntry> read_aa_history(const std::filesystem::path& path, int* skipped = nullptr);

// The false-alarm rate over the entries of `device`'s model; nullopt when there are none.
std::optional<AaFalseAlarmRate> aa_false_alarm_rate(
    const std::vector<AaHistoryEntry>& history, const DeviceIdentity& device);

// One rate per device model in the history, in order of first appearance.
std::vector<AaFalseAlarmRate> aa_false_alarm_rates(const std::vector<AaHistoryEntry>& history);

// "A/A history on NVIDIA H200: 2 false alarms in 31 A/A runs (6.45%, 95% CI 0.79-21.4%)".
std::string describe(const AaFalseAlarmRate& rate);

// describe(*rate), or "A/A history on MODEL: no A/A run recorded yet" when the device has none.
std::string describe_aa_history(const std::optional<AaFalseAlarmRate>& rate, const std::string& model);

} // namespace kwb
