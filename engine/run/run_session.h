// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/runnability.h"
#include "study/study.h"
#include "workloads/workload.h"

#include <stdexcept>
#include <string>
#include <vector>

// One run, from a loaded study to what runs and on which device: the engine's owner of the rules
// every way of running asks (`kwb run`, its spread-out workers and parent, Slurm cells, remote runs
// and the window, which all end in `kwb run`). The command line only parses and prints.
namespace kwb {

// Bad input found while planning a run: the study (or an option) must change. `kwb` exits 2.
class RunRefused : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct RunSettings {
    std::string study; // the study's path as the user named it (for messages)
    std::string backend; // "auto", "cpu", "cuda"; empty: each experiment's own
    int device = 0; // the CUDA device index
    bool new_device = false; // continue an experiment measured on another device model as a new one
    bool new_attempt = false; // a finished study: attempt its last experiment again
};

struct PlannedExperiment {
    size_t index = 0; // into Study::experiments (stable once planning is over)
    const Workload* workload = nullptr;
    Backend backend = Backend::Cpu;
};

struct SessionPlan {
    std::vector<PlannedExperiment> experiments; // in study order
    std::vector<std::string> notices; // "STUDY: experiment ab-1: the arms are identical (an A/A run)"
};

// The identity of the device a backend runs on here: the CPU, or CUDA device `index`. Throws
// RunRefused when there is no such CUDA device.
DeviceIdentity device_identity_here(Backend backend, int index);

class RunSession {
public:
    RunSession(const WorkloadRegistry& registry, RunSettings settings);

    // One experiment checked as a run checks it. Throws RunRefused naming the study and the
    // experiment for bad input, std::runtime_error when this machine cannot run it as asked (not
    // with Where::Elsewhere: a Slurm login node submits work for other machines).
    enum class Where { Here, Elsewhere };
    Runnability check(const Study& study, const Experiment& experiment, Where where = Where::Here) const;

    // Prepares a loaded study (the caller holds its lock) for this run: ids unique, the new attempt
    // appended when asked, each runnable experiment checked, its backend chosen and its device
    // matched (an experiment with samples of another device model is refused, or continued as a new
    // experiment with --new-device). Changes `study` only as the run would record it.
    SessionPlan plan(Study& study) const;

    const RunSettings& settings() const { return settings_; }

private:
    Experiment* match_device(Study& study, Experiment& experiment, const DeviceIdentity& here) const;

    const WorkloadRegistry& registry_;
    RunSettings settings_;
};

} // namespace kwb
