// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/aa_verdict.h"

#include "study/arm_roles.h"
#include "study/grid.h"
#include "verdict/verdict.h"
#include "verdict/wording.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace kwb {
namespace {

// Judged runs whose value the verdict engine takes (finite, positive), in run order.
std::vector<const Sample*> usable_runs(const Experiment& e, const std::string& arm)
{
    std::vector<const Sample*> out;
    for (const auto* s : judged_samples(e, arm, e.metric)) {
        const double x = s->metrics.at(e.metric);
        if (std::isfinite(x) && x > 0)
            out.push_back(s);
    }
    return out;
}

std::vector<double> values_of(const std::vector<const Sample*>& runs, const std::string& metric)
{
    std::vector<double> v;
    for (const auto* s : runs)
        v.push_back(s->metrics.at(metric));
    return v;
}

} // namespace

std::optional<SampleVerdict> judge_aa_arm(const Experiment& e, const Profile& profile)
{
    const Arm* aa = aa_arm(e);
    if (!aa || e.arms.empty())
        return std::nullopt;
    const auto base = usable_runs(e, e.arms.front().name);
    const auto again = usable_runs(e, aa->name);
    if (base.empty() || again.empty())
        return std::nullopt;
    // Pairs are the runs of one block (position / arms), as for the A/B itself.
    const auto arms = static_cast<int>(e.arms.size());
    bool paired = base.size() == again.size();
    for (size_t i = 0; paired && i < base.size(); ++i)
        paired = base[i]->position / arms == again[i]->position / arms;
    return judge_samples(values_of(base, e.metric), values_of(again, e.metric), profile, paired);
}

bool aa_false_alarm(const SampleVerdict& aa)
{
    return aa.word != VerdictWord::Noise;
}

std::string aa_summary(const SampleVerdict& aa)
{
    using wording::num;
    const std::string delta = aa.delta_pct ? num(*aa.delta_pct) + "%" : std::string("undefined");
    const std::string ci
        = aa.ci95_delta_pct ? fmt::format(" [{}, {}]", num((*aa.ci95_delta_pct)[0]), num((*aa.ci95_delta_pct)[1])) : "";
    return fmt::format(
        "A/A at n = {}: {}, delta {}{}", std::min(aa.n_baseline(), aa.n_treatment()), to_string(aa.word), delta, ci);
}

std::string grid_aa_line(const Study& study, const GridGroup& grid)
{
    const Experiment* cell = grid_aa_cell(study, grid);
    if (!cell)
        return {};
    const std::string where = grid_cell_label(cell->cell);
    if (!cell->aa_verdict)
        return fmt::format("A/A arm beside cell {}: no verdict yet", where);
    return fmt::format("{} (the baseline cell {} again, beside cell {}){}", aa_summary(*cell->aa_verdict),
        cell->arms.front().name, where, aa_false_alarm(*cell->aa_verdict) ? ": a false alarm" : "");
}

} // namespace kwb
