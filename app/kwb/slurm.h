// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

// What kwb knows of a study's Slurm job arrays (docs/cluster.md): which array task runs which
// experiment (STUDY.parts/slurm.json, written by `kwb submit`), what Slurm says of each task
// (squeue for tasks in the queue, scontrol for tasks that ended a short while ago; no accounting
// database needed), and from both plus the part files, one state per experiment.
namespace kwb::cli::slurm {

struct Submission {
    std::string job; // the array job id
    int task = 0; // the array task index
    std::string submitted_at;
    std::vector<std::string> earlier; // "JOB_TASK" of earlier submissions of the same experiment
    std::string job_task() const { return job + "_" + std::to_string(task); }
};

std::filesystem::path submissions_path(const std::filesystem::path& study);
std::map<std::string, Submission> read_submissions(const std::filesystem::path& study);
void write_submissions(const std::filesystem::path& study, const std::map<std::string, Submission>& submissions);

struct TaskState {
    std::string state; // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, PREEMPTED, TIMEOUT, ...
    std::string reason; // Slurm's reason, "None" when none
};

// Each task's state by "JOB_TASK"; a task Slurm no longer knows is absent. `problem` is set when
// squeue cannot be asked at all (no Slurm here).
std::map<std::string, TaskState> task_states(const std::vector<std::string>& job_tasks, std::string& problem);
// The same for every task the study recorded as submitted.
std::map<std::string, TaskState> task_states(
    const std::map<std::string, Submission>& submissions, std::string& problem);

// One experiment as `kwb status` shows it.
struct CellStatus {
    std::string id;
    std::string state; // queued, running, done, failed, stopped, not submitted
    std::string slurm_job; // "JOB_TASK", empty when never submitted
    std::string slurm_state; // Slurm's word, empty when Slurm does not know the task
    std::string slurm_reason;
    int samples = 0; // samples in the part (or the study when there is no part)
    bool collected = false; // the study holds what the part holds
    std::string detail; // one sentence: why failed, who runs it, what to do
};

std::vector<CellStatus> cell_statuses(const std::filesystem::path& study_path, const Study& study,
    const std::map<std::string, Submission>& submissions, const std::map<std::string, TaskState>& states);

// Whether Slurm's state is one of a task still waiting or running (it must not be submitted again).
bool in_queue(const std::string& slurm_state);

} // namespace kwb::cli::slurm
