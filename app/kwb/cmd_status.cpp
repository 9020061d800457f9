// SPDX-License-Identifier: GPL-3.0-or-later
// `kwb status STUDY`: each experiment of a study run apart (kwb submit, kwb run --cell) as queued,
// running, done, failed, stopped or not submitted, from squeue / scontrol and the part files
// (docs/cluster.md). A task that failed or was cancelled, preempted or timed out is shown with
// Slurm's state and the command that resubmits it alone.
#include "commands.h"
#include "slurm.h"
#include "study/study_file.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace kwb::cli {
namespace {

int status(const std::string& path, bool json)
{
    Study study;
    try {
        study = load_study(path);
    } catch (const StudyLoadError& e) {
        throw BadInput(e.what());
    }
    std::map<std::string, slurm::Submission> submissions;
    try {
        submissions = slurm::read_submissions(path);
    } catch (const std::exception& e) {
        throw BadInput(e.what());
    }
    std::string problem;
    const auto states = slurm::task_states(submissions, problem);
    if (!problem.empty())
        fmt::print(stderr, "kwb: cannot ask Slurm ({}): states from the part files only\n", problem);
    const auto cells = slurm::cell_statuses(path, study, submissions, states);
    std::map<std::string, int> counts;
    for (const auto& c : cells)
        ++counts[c.state];
    if (json) {
        nlohmann::json out = {{"study", path}, {"cells", nlohmann::json::array()}, {"counts", counts}};
        for (const auto& c : cells)
            out["cells"].push_back({{"id", c.id}, {"state", c.state}, {"slurm_job", c.slurm_job},
                {"slurm_state", c.slurm_state}, {"slurm_reason", c.slurm_reason}, {"samples", c.samples},
                {"collected", c.collected}, {"detail", c.detail}});
        fmt::print("{}\n", out.dump(2));
        return kOk;
    }
    size_t width = 2;
    for (const auto& c : cells)
        width = std::max(width, c.id.size());
    fmt::print("{:<{}}  {:<13}  {:<12}  {:>7}  {}\n", "id", width, "state", "slurm task", "samples", "detail");
    for (const auto& c : cells)
        fmt::print("{:<{}}  {:<13}  {:<12}  {:>7}  {}\n", c.id, width, c.state, c.slurm_job.empty() ? "-" : c.slurm_job,
            c.samples, c.detail);
    std::string summary;
    for (const auto& [state, n] : counts)
        summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, state);
    fmt::print("{} experiment{}: {}\n", cells.size(), cells.size() == 1 ? "" : "s", summary);
    return kOk;
}

} // namespace

void add_status_command(CLI::App& app, Action& action)
{
    auto* cmd = app.add_subcommand("status",
        "Each experiment of a study run apart: queued, running, done, failed (from Slurm and the part files)");
    auto path = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("STUDY", *path, "The study file")->required();
    cmd->add_flag(
        "--json", *json, "One JSON object: {study, cells: [{id, state, slurm_job, slurm_state, ...}], counts}");
    cmd->callback([&action, path, json] { action = [path, json] { return status(*path, *json); }; });
}

} // namespace kwb::cli
