// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurm.h"

#include "study/study_file.h"
#include "study/study_json.h"
#include "study/study_lock.h"
#include "study/study_parts.h"
#include "subprocess.h"
#include "util/atomic_file.h"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace kwb::cli::slurm {
namespace fs = std::filesystem;

namespace {

const std::set<std::string> kWaiting = {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
    "RESV_DEL_HOLD", "SUSPENDED", "STOPPED", "RESIZING"};
const std::set<std::string> kRunning = {"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING"};

// "JobState=RUNNING Reason=None ..." -> the value of `key`.
std::string field(const std::string& line, const std::string& key)
{
    const std::string token = key + "=";
    size_t start = 0;
    if (line.compare(0, token.size(), token) == 0) {
        start = token.size();
    } else {
        const size_t at = line.find(" " + token);
        if (at == std::string::npos)
            return {};
        start = at + 1 + token.size();
    }
    const size_t end = line.find(' ', start);
    return line.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

} // namespace

fs::path submissions_path(const fs::path& study)
{
    return parts_dir(study) / "slurm.json";
}

std::map<std::string, Submission> read_submissions(const fs::path& study)
{
    std::map<std::string, Submission> out;
    const fs::path path = submissions_path(study);
    if (!fs::exists(path))
        return out;
    const auto j = nlohmann::json::parse(read_file(path), nullptr, false);
    if (!j.is_object() || !j.contains("cells") || !j["cells"].is_object())
        throw std::runtime_error(
            fmt::format("{}: not a kwb submission record (expected {{\"cells\": {{...}}}})", path.string()));
    for (const auto& [id, c] : j["cells"].items()) {
        if (!c.is_object() || !c.contains("job") || !c["job"].is_string())
            throw std::runtime_error(
                fmt::format("{}: cells.{}: expected {{\"job\", \"task\", ...}}", path.string(), id));
        Submission s;
        s.job = c["job"].get<std::string>();
        s.task = c.value("task", 0);
        s.submitted_at = c.value("submitted_at", "");
        s.earlier = c.value("earlier", std::vector<std::string> {});
        out[id] = s;
    }
    return out;
}

void write_submissions(const fs::path& study, const std::map<std::string, Submission>& submissions)
{
    nlohmann::json cells = nlohmann::json::object();
    for (const auto& [id, s] : submissions)
        cells[id] = {{"job", s.job}, {"task", s.task}, {"job_task", s.job_task()}, {"submitted_at", s.submitted_at},
            {"earlier", s.earlier}};
    write_file_atomically(submissions_path(study), nlohmann::json({{"cells", cells}}).dump(2) + "\n");
}

std::map<std::string, TaskState> task_states(const std::vector<std::string>& job_tasks, std::string& problem)
{
    std::map<std::string, TaskState> out;
    if (job_tasks.empty())
        return out;
    std::set<std::string> jobs;
    for (const auto& t : job_tasks)
        jobs.insert(t.substr(0, t.find('_')));
    // squeue: every task in the queue, arrays expanded (-r), one line each. One job at a time:
    // squeue fails for a job id it no longer knows (those are asked of scontrol below).
    for (const auto& job : jobs) {
        const auto q = run_process({"squeue", "-h", "-r", "-j", job, "-o", "%i|%T|%r"});
        if (!q.start_error.empty()) {
            problem = fmt::format("squeue: {}", q.start_error);
            return out;
        }
        std::istringstream lines(q.out);
        for (std::string line; std::getline(lines, line);) {
            const auto a = line.find('|'), b = line.rfind('|');
            if (a == std::string::npos || b == a)
                continue;
            out[line.substr(0, a)] = {line.substr(a + 1, b - a - 1), line.substr(b + 1)};
        }
    }
    // scontrol: tasks that have left the queue, for as long as slurmctld remembers them (MinJobAge).
    for (const auto& t : job_tasks) {
        if (out.count(t))
            continue;
        const auto s = run_process({"scontrol", "-o", "show", "job", t});
        if (s.exit_code != 0)
            continue;
        std::istringstream records(s.out);
        for (std::string line; std::getline(records, line);) {
            const std::string id = field(line, "ArrayJobId") + "_" + field(line, "ArrayTaskId");
            if (id == t || field(line, "JobId") == t)
                out[t] = {field(line, "JobState"), field(line, "Reason")};
        }
    }
    return out;
}

bool in_queue(const std::string& slurm_state)
{
    return kWaiting.count(slurm_state) || kRunning.count(slurm_state);
}

std::vector<CellStatus> cell_statuses(const fs::path& study_path, const Study& study,
    const std::map<std::string, Submission>& submissions, const std::map<std::string, TaskState>& states)
{
    std::vector<CellStatus> out;
    for (const auto& e : study.experiments) {
        CellStatus c;
        c.id = e.id;
        const auto sub = submissions.find(e.id);
        if (sub != submissions.end()) {
            c.slurm_job = sub->second.job_task();
            if (const auto st = states.find(c.slurm_job); st != states.end()) {
                c.slurm_state = st->second.state;
                c.slurm_reason = st->second.reason;
            }
        }
        // The part, when there is one, is the newest copy of the run; else the study's own.
        const fs::path part_file = part_path(study_path, e.id);
        std::optional<Experiment> part;
        std::string part_error;
        if (fs::exists(part_file)) {
            try {
                Study p = load_study(part_file);
                if (const auto problem = part_problem(p, e.id); problem.empty())
                    part = p.experiments[0];
                else
                    part_error = problem;
            } catch (const std::exception& ex) {
                part_error = ex.what();
            }
        }
        const Experiment& newest = part ? *part : e;
        const auto holder = study_lock_holder(part_file);
        c.samples = static_cast<int>(newest.samples.size());
        c.collected = !part || measured_state(*part) == measured_state(e);
        if (kWaiting.count(c.slurm_state)) {
            c.state = "queued";
            c.detail = fmt::format("Slurm: {} ({})", c.slurm_state, c.slurm_reason);
        } else if (kRunning.count(c.slurm_state) || holder) {
            c.state = "running";
            if (holder)
                c.detail = fmt::format("{} holds its part", holder->describe());
        } else if (newest.status == ExperimentStatus::Done) {
            c.state = "done";
            c.detail = c.collected ? "in the study" : "finished in its part; kwb collect folds it";
        } else if (newest.status == ExperimentStatus::Failed) {
            c.state = "failed";
            c.detail = fmt::format("the run failed: {}", newest.error);
        } else if (!c.slurm_job.empty()) {
            // Submitted, out of the queue, and its part not finished: the task died, was cancelled,
            // preempted or timed out, or Slurm has forgotten it.
            c.state = "failed";
            c.detail = c.slurm_state.empty()
                ? fmt::format("Slurm no longer knows task {} and its part is not finished", c.slurm_job)
                : fmt::format("Slurm: {} ({}) before the experiment finished", c.slurm_state, c.slurm_reason);
            c.detail += fmt::format(
                "; {} samples kept; resubmit alone: kwb submit {} --cell {}", c.samples, study_path.string(), e.id);
        } else if (newest.status == ExperimentStatus::Stopped || newest.status == ExperimentStatus::Running) {
            c.state = "stopped";
            c.detail = fmt::format("{} samples kept; it resumes where it stopped", c.samples);
        } else {
            c.state = "not submitted";
        }
        if (!part_error.empty())
            c.detail += fmt::format("{}unreadable part: {}", c.detail.empty() ? "" : "; ", part_error);
        out.push_back(std::move(c));
    }
    return out;
}

std::map<std::string, TaskState> task_states(const std::map<std::string, Submission>& submissions, std::string& problem)
{
    std::vector<std::string> job_tasks;
    for (const auto& [id, s] : submissions)
        job_tasks.push_back(s.job_task());
    return task_states(job_tasks, problem);
}

} // namespace kwb::cli::slurm
