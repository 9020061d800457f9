// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/fold_parts.h"

#include "run/judge_experiment.h"
#include "study/grid.h"
#include "study/study_file.h"
#include "study/study_lock.h"
#include "study/study_parts.h"
#include "verdict/grid_interaction.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <set>

namespace kwb {

std::vector<FoldReport> fold_parts(
    const WorkloadRegistry& registry, Study& study, const std::string& study_path, const std::vector<std::string>& ids)
{
    std::vector<FoldReport> reports;
    std::set<std::string> touched_grids;
    for (const auto& id : ids.empty() ? part_ids(study_path) : ids) {
        const auto path = part_path(study_path, id);
        if (!std::filesystem::exists(path))
            continue;
        if (const auto holder = study_lock_holder(path)) {
            reports.push_back({id, fmt::format("running ({} holds its part)", holder->describe()), false});
            continue;
        }
        Study part;
        try {
            part = load_study(path);
        } catch (const StudyLoadError& e) {
            reports.push_back({id, fmt::format("unreadable part: {}", e.what()), false});
            continue;
        }
        if (const auto problem = part_problem(part, id); !problem.empty()) {
            reports.push_back({id, fmt::format("not folded: {}: {}", path.string(), problem), false});
            continue;
        }
        const FoldOutcome outcome = fold_part(study, part);
        reports.push_back({id, std::string(to_string(outcome)), outcome == FoldOutcome::Folded});
        if (outcome != FoldOutcome::Folded)
            continue;
        Experiment& e = *study.find_experiment(id);
        if (const Workload* w = registry.find(e.workload))
            judge_experiment(study, e, w->metrics());
        if (!e.group.empty())
            touched_grids.insert(e.group);
    }
    for (const auto& id : touched_grids)
        if (GridGroup* grid = find_grid(study, id))
            judge_grid(study, *grid);
    return reports;
}

bool any_changed(const std::vector<FoldReport>& reports)
{
    return std::any_of(reports.begin(), reports.end(), [](const FoldReport& r) { return r.changed; });
}

} // namespace kwb
