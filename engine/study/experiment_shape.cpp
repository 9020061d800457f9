// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/experiment_shape.h"

#include "study/arm_diff.h"
#include "study/arm_roles.h"
#include "study/git_arm.h"
#include "study/grid.h"
#include "verdict/verdict.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <stdexcept>

namespace kwb {
namespace {

// Samples kept from an earlier session (or edited by hand) must fit the order the run resumes:
// each names an arm of the experiment, and judged runs hold distinct positions from 0 on.
std::string samples_problem(const Experiment& e)
{
    std::set<int> positions;
    for (size_t i = 0; i < e.samples.size(); ++i) {
        const Sample& s = e.samples[i];
        const auto problem = [&](const std::string& what) { return fmt::format("samples[{}]: {}", i, what); };
        if (std::none_of(e.arms.begin(), e.arms.end(), [&](const Arm& a) { return a.name == s.arm; }))
            return problem(fmt::format("arm '{}' is not one of the experiment's arms", s.arm));
        if (s.warmup)
            continue;
        if (s.position < 0 || s.position > kMaxSamplePosition)
            return problem(
                fmt::format("position {} is out of range (0 to {} for a judged run)", s.position, kMaxSamplePosition));
        if (!positions.insert(s.position).second)
            return problem(fmt::format("position {} is taken by an earlier judged sample", s.position));
    }
    return {};
}

} // namespace

std::string arms_problem(const Experiment& e)
{
    const bool grid_cell = e.kind == kGridCellKind;
    if ((e.kind != "ab" && !grid_cell) || ab_arm_count(e) != 2)
        return fmt::format("kwb runs two-arm experiments of kind \"ab\" (a single-variable A/B) or \"{}\" (has "
                           "kind \"{}\", {} arms)",
            kGridCellKind, e.kind, e.arms.size());
    for (size_t i = 0; i < e.arms.size(); ++i)
        for (size_t j = i + 1; j < e.arms.size(); ++j)
            if (e.arms[i].name == e.arms[j].name)
                return fmt::format("two arms are named '{}'; their samples could not be told apart", e.arms[i].name);
    const Arm& baseline = *ab_arms(e).baseline;
    if (const Arm* aa = aa_arm(e)) // the real A/A runs the baseline's configuration, nothing else
        if (aa->params != baseline.params || aa->command.has_value() != baseline.command.has_value()
            || (aa->command && aa->command->cmd != baseline.command->cmd)
            || aa->worker.has_value() != baseline.worker.has_value()
            || (aa->worker && aa->worker->cmd != baseline.worker->cmd))
            return fmt::format("the A/A arm '{}' must run the baseline's configuration (its params and "
                               "command equal to arm {}'s)",
                aa->name, baseline.name);
    return samples_problem(e);
}

ShapeCheck check_experiment_shape(const Study& study, const Experiment& e, const nlohmann::json& baseline_params,
    const nlohmann::json& treatment_params)
{
    ShapeCheck check;
    check.problem = arms_problem(e);
    if (!check.ok())
        return check;
    const AbArms arms = ab_arms(e);
    // Worker arms of two commands are two programs: what differs is the command (like command
    // arms), and their parameters are each their own worker's, never counted against each other.
    const bool two_programs
        = arms.baseline->worker && arms.treatment->worker && arms.baseline->worker->cmd != arms.treatment->worker->cmd;
    if (arms.baseline->worker.has_value() != arms.treatment->worker.has_value()) {
        check.problem = "one arm is a worker and the other is not; both arms of a worker A/B are workers";
        return check;
    }
    const ArmDiff diff = two_programs ? ArmDiff {} : diff_arms(baseline_params, treatment_params);
    if (e.kind == kGridCellKind) {
        check.problem = grid_cell_problem(study, e, baseline_params, treatment_params);
        if (!check.ok())
            return check;
    } else if (!diff.single_variable() && !e.acknowledged_multi_variable) {
        check.problem
            = fmt::format("the arms differ in {} parameters ({}); a single-variable A/B changes one, so the result "
                          "could not be attributed. Set acknowledged_multi_variable to run it anyway",
                diff.differences.size(), diff.names());
        return check;
    }
    // Command arms carry no parameters: their commands are what differs (study/arm_diff.h); worker
    // arms' settings (cwd, env, tolerance) count beside their parameters.
    const bool commands = arms.baseline->command && arms.treatment->command;
    const bool workers = arms.baseline->worker && arms.treatment->worker;
    ArmDiff pair = workers
        ? diff_workers(*arms.baseline->worker, baseline_params, *arms.treatment->worker, treatment_params)
        : diff;
    if (workers)
        add_commit_differences(pair, *arms.baseline, *arms.treatment);
    if ((commands ? diff_arm_pair(*arms.baseline, *arms.treatment) : pair).differences.empty()) {
        // Two commit arms that are one commit built one way measure nothing but noise: an A/A is
        // asked for by name (docs/git-arms.md), with the real A/A arm.
        if (is_git_experiment(e) && !aa_arm(e)) {
            check.problem = "the arms are the same commit, built and run the same way (an A/A run); give two "
                            "different refs, or --aa-arm to run an A/A on purpose";
            return check;
        }
        check.notices.emplace_back("the arms are identical (an A/A run)");
    }
    try {
        // The direction does not matter here: only the name and the overrides are checked.
        (void)apply_overrides(make_profile(e.profile, Direction::Lower), e.profile_overrides);
    } catch (const std::invalid_argument& ex) {
        check.problem = fmt::format("profile: {}", ex.what());
    }
    return check;
}

} // namespace kwb
