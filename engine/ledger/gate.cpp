// SPDX-License-Identifier: GPL-3.0-or-later
#include "ledger/gate.h"

#include "ledger/ledger_history.h"
#include "ledger/ledger_query.h"
#include "verdict/verdict_json.h"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kwb::ledger {
namespace {

std::string pct(double v)
{
    return fmt::format("{:+.2f}%", v);
}

} // namespace

bool GateResult::regressed() const
{
    return std::any_of(items.begin(), items.end(), [](const GateItem& i) { return i.call.regressed; });
}

GateResult gate_study(const Study& study, const std::string& path, double tolerance_pct)
{
    GateResult r;
    r.subject = path;
    for (const auto& e : study.experiments) {
        if (!e.verdict)
            continue;
        GateItem item;
        item.study = path;
        item.experiment = e.id;
        item.metric = e.metric;
        item.device = e.device.model;
        item.word = std::string(to_string(e.final_verdict ? e.final_verdict->word : e.verdict->word));
        item.call = call_regression(*e.verdict, e.verdict->profile, tolerance_pct);
        r.items.push_back(item);
        if (e.final_verdict)
            for (const auto& g : e.final_verdict->guards) {
                GateItem guard = item;
                guard.metric = g.metric;
                guard.guard = true;
                // Judged by call_regression under the guard's own tolerance when the study was judged.
                guard.call.assessed = g.assessed;
                guard.call.regressed = g.regressed;
                guard.call.delta_pct = g.delta_pct.value_or(0.0);
                guard.call.sigma_pct = g.sigma_pct.value_or(0.0);
                guard.call.noise_band_pct = e.verdict->profile.noise_k * guard.call.sigma_pct;
                r.items.push_back(guard);
            }
    }
    if (r.items.empty())
        throw LedgerError(fmt::format("{}: no judged experiment to gate (run it first)", path));
    return r;
}

GateResult gate_history(Database& db, const std::string& text, const std::string& device_model, double tolerance_pct)
{
    const std::string key = resolve_key(db, text);
    GateResult r;
    r.subject = key;
    std::vector<std::string> models
        = device_model.empty() ? history_devices(db, key) : std::vector<std::string> {device_model};
    for (const auto& model : models) {
        Filter f;
        f.benchmark_key = key;
        auto rows = list_attempts(db, f);
        std::erase_if(rows, [&](const ExperimentRow& row) { return row.device.model != model; });
        if (rows.empty())
            throw LedgerError(fmt::format("the ledger has no attempt of '{}' on {}", key, model));
        const ExperimentRow& last = rows.back();
        const SampleVerdict v = sample_verdict_from_json(nlohmann::json::parse(last.verdict));
        GateItem item;
        item.study = last.study_path;
        item.experiment = last.experiment_id;
        item.metric = last.metric;
        item.device = model;
        item.word = last.final_word.empty() ? last.word : last.final_word;
        item.call = call_regression(v, v.profile, tolerance_pct);
        r.items.push_back(item);
        if (last.guards_regressed) {
            GateItem guard = item;
            guard.metric = "guards";
            guard.guard = true;
            guard.call.regressed = true;
            r.items.push_back(guard);
        }
        const History h = load_history(db, key, model);
        for (const auto& c : h.change_points)
            r.notes.push_back(fmt::format(
                "{}: change point at point {} ({}): delta {} (sigma {:.2f}%, Welch p {:.2g}), {}", model, c.index,
                h.points[c.index].at, pct(c.delta_pct), c.sigma_pct, c.p_welch, c.regression ? "worse" : "better"));
    }
    return r;
}

std::string gate_markdown(const GateResult& r, double tolerance_pct)
{
    std::string md = fmt::format("### kwb gate: {}\n\n", r.regressed() ? "regression" : "no regression");
    md += fmt::format("`{}` (tolerance {:.2f}%; the guard rule of spec/verdict.md: delta% < 0, |delta%| > noise_k x "
                      "sigma% and beyond the tolerance)\n\n",
        r.subject, tolerance_pct);
    md += "| experiment | metric | device | verdict | delta% | noise band | regression |\n";
    md += "|---|---|---|---|---:|---:|---|\n";
    for (const auto& i : r.items)
        md += fmt::format("| {} | {}{} | {} | {} | {} | {:.2f}% | {} |\n", i.experiment, i.metric,
            i.guard ? " (guard)" : "", i.device.empty() ? "-" : i.device, i.word,
            i.call.assessed ? pct(i.call.delta_pct) : "-", i.call.noise_band_pct,
            !i.call.assessed       ? "not assessed"
                : i.call.regressed ? "**yes**"
                                   : "no");
    if (!r.notes.empty()) {
        md += "\n";
        for (const auto& n : r.notes)
            md += fmt::format("- {}\n", n);
    }
    return md;
}

} // namespace kwb::ledger
