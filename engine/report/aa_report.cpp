// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/aa_report.h"

#include "study/arm_roles.h"
#include "study/device_identity.h"
#include "study/grid.h"
#include "verdict/aa_verdict.h"

#include <algorithm>

namespace kwb::report {

std::optional<AaReport> aa_report(const Study& study, const Experiment& e)
{
    const Arm* arm = aa_arm(e);
    if (!arm)
        return std::nullopt;
    AaReport a;
    a.arm = arm->name;
    if (!e.group.empty())
        if (const GridGroup* grid = find_grid(study, e.group); grid && grid_aa_cell(study, *grid) == &e)
            a.grid = grid->id;
    if (!e.aa_verdict) {
        a.summary = "no verdict yet";
        return a;
    }
    const SampleVerdict& v = *e.aa_verdict;
    a.judged = true;
    a.n = std::min(v.n_baseline(), v.n_treatment());
    a.word = std::string(to_string(v.word));
    a.delta_pct = v.delta_pct;
    a.ci95_delta_pct = v.ci95_delta_pct;
    a.false_alarm = aa_false_alarm(v);
    a.summary = aa_summary(v);
    return a;
}

bool has_aa_arm(const Report& r)
{
    return std::any_of(
        r.experiments.begin(), r.experiments.end(), [](const ExperimentReport& e) { return e.aa.has_value(); });
}

void attach_aa_history(Report& r, const std::vector<AaHistoryEntry>& history, std::string source)
{
    AaHistoryReport h;
    h.attached = true;
    h.source = std::move(source);
    std::vector<DeviceIdentity> seen;
    for (const auto& e : r.experiments) {
        if (e.device.empty()
            || std::any_of(seen.begin(), seen.end(), [&](const DeviceIdentity& d) { return same_device(d, e.device); }))
            continue;
        seen.push_back(e.device);
        h.devices.push_back(e.device.model);
        if (auto rate = aa_false_alarm_rate(history, e.device))
            h.rates.push_back(std::move(*rate));
    }
    r.aa_history = std::move(h);
}

void attach_aa_history(Report& r)
{
    std::string source;
    try {
        const auto path = aa_history_path();
        source = path.string();
        attach_aa_history(r, read_aa_history(path), source);
    } catch (const std::exception& ex) {
        r.aa_history = {};
        r.aa_history.attached = true;
        r.aa_history.source = source;
        r.aa_history.problem = ex.what();
    }
}

} // namespace kwb::report
