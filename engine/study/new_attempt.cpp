// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/new_attempt.h"

#include "study/grid.h"
#include "study/path_names.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <stdexcept>

namespace kwb {
namespace {

// "ab-1" -> "ab-2" (the first free number after the stem).
std::string next_id(const Study& study, const Experiment& e)
{
    std::string stem = e.id;
    while (!stem.empty() && (std::isdigit(static_cast<unsigned char>(stem.back())) || stem.back() == '-'))
        stem.pop_back();
    if (stem.empty())
        stem = e.kind;
    return unique_experiment_id(study, stem, 2);
}

std::string next_grid_id(const Study& study)
{
    for (int n = static_cast<int>(study.grids.size()) + 1;; ++n) {
        std::string id = fmt::format("grid-{}", n);
        if (!find_grid(study, id))
            return id;
    }
}

} // namespace

bool is_runnable(const Experiment& e)
{
    return e.status == ExperimentStatus::Pending || e.status == ExperimentStatus::Stopped
        || e.status == ExperimentStatus::Running;
}

bool has_runnable_experiment(const Study& study)
{
    return std::any_of(study.experiments.begin(), study.experiments.end(), is_runnable);
}

// Everything a run writes goes; everything the engineer planned stays.
Experiment fresh_attempt(const Experiment& finished)
{
    Experiment next = finished;
    next.status = ExperimentStatus::Pending;
    next.error.clear();
    next.stop_reason.clear();
    next.samples.clear();
    next.lanes.clear();
    next.split_half.reset();
    next.aa_verdict.reset();
    next.timed_elapsed_s.reset();
    next.missing_gates.clear();
    next.device = {};
    next.launches_per_rep.reset();
    next.shared_buffers.reset();
    next.limitations.clear();
    for (auto& arm : next.arms)
        arm.check.reset();
    next.verdict.reset();
    next.final_verdict.reset();
    next.stopping.reset();
    return next;
}

int new_attempt_source(const Study& study)
{
    const auto& ex = study.experiments;
    for (int i = static_cast<int>(ex.size()) - 1; i >= 0; --i)
        if (!ex[static_cast<size_t>(i)].samples.empty())
            return i;
    return static_cast<int>(ex.size()) - 1;
}

std::vector<std::string> append_new_attempt(Study& study, int index)
{
    if (index < 0 || index >= static_cast<int>(study.experiments.size()))
        throw std::out_of_range(fmt::format("no experiment {} to attempt again", index));
    const Experiment source = study.experiments[static_cast<size_t>(index)];
    const GridGroup* grid = source.kind == kGridCellKind ? find_grid(study, source.group) : nullptr;
    if (!grid) {
        Experiment next = fresh_attempt(source);
        next.id = next_id(study, source);
        study.experiments.push_back(std::move(next));
        return {study.experiments.back().id};
    }
    GridGroup again = *grid;
    again.id = next_grid_id(study);
    again.interaction.reset();
    std::vector<Experiment> cells;
    for (const auto* cell : grid_cells(study, *grid)) {
        Experiment next = fresh_attempt(*cell);
        next.group = again.id;
        next.id = fmt::format("{}-{}", again.id, grid_cell_label(next.cell));
        cells.push_back(std::move(next));
    }
    std::vector<std::string> ids;
    for (auto& c : cells) {
        ids.push_back(c.id);
        study.experiments.push_back(std::move(c));
    }
    study.grids.push_back(std::move(again));
    return ids;
}

std::vector<std::string> new_attempt_if_finished(Study& study)
{
    if (has_runnable_experiment(study) || study.experiments.empty())
        return {};
    return append_new_attempt(study, new_attempt_source(study));
}

} // namespace kwb
