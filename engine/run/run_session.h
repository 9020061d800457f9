// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/aa_history.h"
#include "run/run_observer.h"
#include "run/runnability.h"
#include "run/runner.h"
#include "study/study.h"
#include "workloads/workload.h"

#include <atomic>
#include <functional>
#include <optional>
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
    bool device_named = false; // --device was given: a command experiment left at auto runs on that GPU
    // Last, so that the positional initialisers of the fields above keep their meaning.
    // A finished study: add runs to its last experiment (run/continue_run.h), to `continue_to` per
    // arm, or the verdict's estimate when null.
    bool continue_runs = false;
    std::optional<int> continue_to {};
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

// What the caller brings to a run: where results go, who watches, how a save is protected from a
// signal, and where lines for people go. Everything optional but `file`.
struct SessionIo {
    std::string file; // where results are saved: the study, or a cell's part file
    RunObserver* observer = nullptr; // the progress stream, a progress bar
    const std::atomic<bool>* cancel = nullptr; // set by a signal or a reader gone away
    bool no_cupti = false; // CUPTI PM sampling off (NVML and procfs stay)
    // After a grid cell: estimate its grid's interaction again (off for a cell run into its part
    // file: the study's grid is judged when the part is folded).
    bool judge_grids = true;
    std::function<void()> before_repetition; // a repetition starts: a signal must not cut it short
    // Runs `save` as one step a signal must not cut short; default: just runs it.
    std::function<void(const std::function<void()>& save)> guarded;
    std::function<void(const std::string& line)> notice; // for people, on stderr
    // An experiment ended (judged and saved): its outcome.
    std::function<void(const Experiment&, RunOutcome)> experiment_done;
    // A grid's interaction was estimated again after one of its cells.
    std::function<void(const Study&, const GridGroup&)> grid_judged;
    // A finished experiment's real A/A joined its device's history (run/aa_history.h): the device's
    // false-alarm rate, or why the history could not be kept.
    std::function<void(const Experiment&, const std::optional<AaFalseAlarmRate>&, const std::string& problem)>
        aa_recorded;
};

// How a session ended: "done", "stopped" (a cancel, or an experiment stopped) or "failed".
struct SessionResult {
    std::string status = "done";
    std::string failed_experiment; // the experiment that failed, when status is failed
    std::string stopped_experiment; // the experiment stopped mid-run; empty when the stop came between two
};

// The identity of the device a backend runs on here: the CPU, or CUDA device `index` (the plugin's
// sheet, else NVML's: run/visible_gpu.h). Throws RunRefused when there is no such CUDA device.
DeviceIdentity device_identity_here(Backend backend, int index);

// The device of a worker experiment (docs/worker-protocol.md): what the worker described. A GPU
// worker's is the GPU it described by uuid as NVML sees it (model, uuid, driver), else the GPU at
// the run's --device index (run/visible_gpu.h), so its lanes, clocks and A/A history are that
// GPU's; with neither, the worker's own words. A CPU worker runs on this host's CPU.
DeviceIdentity worker_device_identity(const WorkerDescription& description, int index);

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

    // Runs the planned experiments one after another (each interleaving its arms, saved after
    // every repetition), then judges what they finished: the experiment (by the Runner), its grid,
    // its A/A history. Stops at the first failed or stopped experiment. A save that fails throws.
    SessionResult run(Study& study, const SessionPlan& plan, const SessionIo& io) const;

    const RunSettings& settings() const { return settings_; }

private:
    Experiment* match_device(Study& study, Experiment& experiment, const DeviceIdentity& here) const;
    void record_aa(const Experiment& experiment, const SessionIo& io) const;

    const WorkloadRegistry& registry_;
    RunSettings settings_;
};

} // namespace kwb
