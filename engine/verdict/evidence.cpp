// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/evidence.h"

#include "stats/effect.h"

#include <algorithm>
#include <cmath>

namespace kwb {

SampleEvidence collect_evidence(
    const std::vector<double>& baseline, const std::vector<double>& treatment, Direction direction, bool paired)
{
    SampleEvidence e;
    e.direction = direction;
    e.baseline = stats::summarize(baseline);
    e.treatment = stats::summarize(treatment);
    e.bimodal_baseline = stats::assess_bimodality(baseline);
    e.bimodal_treatment = stats::assess_bimodality(treatment);
    e.delta_pct = stats::delta_pct(e.baseline.mean, e.treatment.mean, direction);
    e.speedup = stats::speedup(e.baseline.mean, e.treatment.mean, direction);
    if (e.baseline.cv_pct && e.treatment.cv_pct)
        e.sigma_pct = std::max(*e.baseline.cv_pct, *e.treatment.cv_pct);
    e.ci95_delta_pct = stats::bootstrap_delta_ci(baseline, treatment, direction);
    e.p_welch = stats::welch_p(baseline, treatment);
    e.mannwhitney = stats::mann_whitney(baseline, treatment);
    if (paired && baseline.size() == treatment.size()) {
        PairedEvidence p;
        p.n_pairs = baseline.size();
        for (std::size_t i = 0; i < p.n_pairs; ++i)
            p.delta_pct.push_back(stats::delta_pct(baseline[i], treatment[i], direction));
        p.mean_delta_pct = stats::mean(p.delta_pct);
        p.ci95_delta_pct = stats::bootstrap_mean_ci(p.delta_pct);
        e.paired = std::move(p);
    }
    return e;
}

nlohmann::json number_or_null(double x)
{
    return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

nlohmann::json number_or_null(const std::optional<double>& x)
{
    return x ? number_or_null(*x) : nlohmann::json(nullptr);
}

nlohmann::json interval_or_null(const std::optional<stats::Interval>& ci)
{
    if (!ci || !std::isfinite((*ci)[0]) || !std::isfinite((*ci)[1]))
        return nullptr;
    return nlohmann::json::array({(*ci)[0], (*ci)[1]});
}

nlohmann::json arm_to_json(const stats::ArmSummary& arm, const stats::Bimodality& bimodality)
{
    nlohmann::json modes = nullptr;
    if (bimodality.bimodal.value_or(false)) {
        modes = nlohmann::json::array();
        for (const auto& m : bimodality.modes)
            modes.push_back({{"share", m.share}, {"mean", number_or_null(m.mean)}});
    }
    return {{"n", arm.n}, {"mean", number_or_null(arm.mean)}, {"median", number_or_null(arm.median)},
        {"stddev", number_or_null(arm.stddev)}, {"cv_pct", number_or_null(arm.cv_pct)},
        {"min", number_or_null(arm.min)}, {"max", number_or_null(arm.max)}, {"p50", number_or_null(arm.p50)},
        {"p90", number_or_null(arm.p90)}, {"p99", number_or_null(arm.p99)}, {"outliers_mild", arm.outliers.mild},
        {"outliers_extreme", arm.outliers.extreme}, {"modes", modes}};
}

} // namespace kwb
