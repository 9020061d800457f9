// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/interaction.h"

#include "stats/descriptive.h"
#include "stats/effect.h"

#include <algorithm>
#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <fmt/format.h>
#include <random>
#include <stdexcept>

namespace kwb::stats {
namespace {

using Grid = std::vector<std::vector<double>>;

// Cells in row-major order, checked: each non-baseline cell once, arms usable.
std::vector<const GridCellRuns*> ordered_cells(int rows, int cols, const std::vector<GridCellRuns>& cells)
{
    if (rows < 2 || rows > 4 || cols < 2 || cols > 4)
        throw std::invalid_argument(fmt::format("a grid has 2 to 4 levels per variable (got {} x {})", rows, cols));
    std::vector<const GridCellRuns*> at(static_cast<size_t>(rows * cols), nullptr);
    for (const auto& c : cells) {
        if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols || (c.row == 0 && c.col == 0))
            throw std::invalid_argument(
                fmt::format("cell r{}c{} is not a non-baseline cell of a {} x {} grid", c.row, c.col, rows, cols));
        auto& slot = at[static_cast<size_t>(c.row * cols + c.col)];
        if (slot)
            throw std::invalid_argument(fmt::format("cell r{}c{} is given twice", c.row, c.col));
        for (const auto* arm : {&c.baseline, &c.treatment})
            if (arm->empty()
                || std::any_of(arm->begin(), arm->end(), [](double x) { return !std::isfinite(x) || x <= 0; }))
                throw std::invalid_argument(
                    fmt::format("cell r{}c{}: each arm needs positive finite runs", c.row, c.col));
        slot = &c;
    }
    std::vector<const GridCellRuns*> ordered;
    for (int i = 0; i < rows * cols; ++i) {
        if (i == 0)
            continue;
        if (!at[static_cast<size_t>(i)])
            throw std::invalid_argument(fmt::format("cell r{}c{} has no runs", i / cols, i % cols));
        ordered.push_back(at[static_cast<size_t>(i)]);
    }
    return ordered;
}

void fill_contrasts(const Grid& d, std::vector<double>& out)
{
    out.clear();
    for (size_t i = 1; i < d.size(); ++i)
        for (size_t j = 1; j < d[i].size(); ++j)
            out.push_back(d[i][j] - (d[i][0] + d[0][j]));
}

// Within-arm sum of squares of the runs taken as delta% against the arm's cell baseline mean.
double scaled_within_ss(const std::vector<double>& values, double baseline_mean)
{
    const double m = mean(values);
    double ss = 0;
    for (double x : values)
        ss += (x - m) * (x - m);
    return ss * (100.0 / baseline_mean) * (100.0 / baseline_mean);
}

double precision_weight(const GridCellRuns& c)
{
    return 1.0 / (1.0 / static_cast<double>(c.baseline.size()) + 1.0 / static_cast<double>(c.treatment.size()));
}

// Weighted residual sum of squares of the cells' deltas under d_ij = a_i + b_j (a_0 = b_0 = 0).
// The weighted least-squares fit is found by backfitting (Gauss-Seidel on the normal equations:
// each row effect the weighted mean of its cells less their column effects, then each column
// effect likewise), which converges for any full grid; at most 15 cells, so it is instant.
double additive_residual_ss(const std::vector<const GridCellRuns*>& cells, const Grid& d, int rows, int cols)
{
    std::vector<double> a(static_cast<size_t>(rows), 0.0), b(static_cast<size_t>(cols), 0.0);
    double scale = 1;
    for (const auto& row : d)
        for (double x : row)
            scale = std::max(scale, std::fabs(x));
    const auto at = [&](const GridCellRuns& c) { return d[static_cast<size_t>(c.row)][static_cast<size_t>(c.col)]; };
    for (int iteration = 0; iteration < 100000; ++iteration) {
        double change = 0;
        for (int i = 1; i < rows; ++i) {
            double num = 0, den = 0;
            for (const auto* c : cells)
                if (c->row == i) {
                    num += precision_weight(*c) * (at(*c) - b[static_cast<size_t>(c->col)]);
                    den += precision_weight(*c);
                }
            change = std::max(change, std::fabs(num / den - a[static_cast<size_t>(i)]));
            a[static_cast<size_t>(i)] = num / den;
        }
        for (int j = 1; j < cols; ++j) {
            double num = 0, den = 0;
            for (const auto* c : cells)
                if (c->col == j) {
                    num += precision_weight(*c) * (at(*c) - a[static_cast<size_t>(c->row)]);
                    den += precision_weight(*c);
                }
            change = std::max(change, std::fabs(num / den - b[static_cast<size_t>(j)]));
            b[static_cast<size_t>(j)] = num / den;
        }
        if (change < 1e-13 * scale)
            break;
    }
    double rss = 0;
    for (const auto* c : cells) {
        const double r = at(*c) - a[static_cast<size_t>(c->row)] - b[static_cast<size_t>(c->col)];
        rss += precision_weight(*c) * r * r;
    }
    return rss;
}

} // namespace

InteractionEstimate estimate_interaction(
    int rows, int cols, const std::vector<GridCellRuns>& cells, Direction direction, int resamples, std::uint64_t seed)
{
    const auto ordered = ordered_cells(rows, cols, cells);
    InteractionEstimate est;
    est.rows = rows;
    est.cols = cols;
    est.delta_pct.assign(static_cast<size_t>(rows), std::vector<double>(static_cast<size_t>(cols), 0.0));
    for (const auto* c : ordered)
        est.delta_pct[static_cast<size_t>(c->row)][static_cast<size_t>(c->col)]
            = delta_pct(mean(c->baseline), mean(c->treatment), direction);

    std::vector<double> measured;
    fill_contrasts(est.delta_pct, measured);
    for (int i = 1, k = 0; i < rows; ++i)
        for (int j = 1; j < cols; ++j, ++k) {
            InteractionContrast ic;
            ic.row = i;
            ic.col = j;
            ic.measured_pct = est.delta_pct[static_cast<size_t>(i)][static_cast<size_t>(j)];
            ic.additive_pct = est.delta_pct[static_cast<size_t>(i)][0] + est.delta_pct[0][static_cast<size_t>(j)];
            ic.interaction_pct = measured[static_cast<size_t>(k)];
            est.contrasts.push_back(ic);
        }

    // Bootstrap: every arm of every cell resampled, all contrasts recomputed together.
    const bool resamplable = std::all_of(ordered.begin(), ordered.end(),
        [](const GridCellRuns* c) { return c->baseline.size() >= 2 && c->treatment.size() >= 2; });
    if (resamplable && resamples > 0) {
        std::mt19937_64 rng(seed);
        Grid d(static_cast<size_t>(rows), std::vector<double>(static_cast<size_t>(cols), 0.0));
        std::vector<std::vector<double>> draws(
            est.contrasts.size(), std::vector<double>(static_cast<size_t>(resamples)));
        std::vector<double> contrast;
        for (int r = 0; r < resamples; ++r) {
            for (const auto* c : ordered) {
                const double mb = resampled_mean(rng, c->baseline);
                const double mt = resampled_mean(rng, c->treatment);
                d[static_cast<size_t>(c->row)][static_cast<size_t>(c->col)] = delta_pct(mb, mt, direction);
            }
            fill_contrasts(d, contrast);
            for (size_t k = 0; k < contrast.size(); ++k)
                draws[k][static_cast<size_t>(r)] = contrast[k];
        }
        for (size_t k = 0; k < est.contrasts.size(); ++k)
            est.contrasts[k].ci95 = central_95(draws[k]);
    }

    // The two-way interaction F-test.
    double within_ss = 0;
    int df_residual = 0;
    for (const auto* c : ordered) {
        const double mb = mean(c->baseline);
        within_ss += scaled_within_ss(c->baseline, mb) + scaled_within_ss(c->treatment, mb);
        df_residual += static_cast<int>(c->baseline.size() + c->treatment.size()) - 2;
    }
    est.df_interaction = (rows - 1) * (cols - 1);
    est.df_residual = df_residual;
    if (df_residual > 0 && within_ss > 0) {
        est.pooled_variance = within_ss / df_residual;
        const double ss_interaction = additive_residual_ss(ordered, est.delta_pct, rows, cols);
        est.f_two_way = (ss_interaction / est.df_interaction) / est.pooled_variance;
        const boost::math::fisher_f dist(est.df_interaction, df_residual);
        est.p_two_way = boost::math::cdf(boost::math::complement(dist, *est.f_two_way));
    }

    if (rows == 2 && cols == 2)
        est.flagged = est.contrasts.front().ci_excludes_zero();
    else
        est.flagged = est.p_two_way && *est.p_two_way < kInteractionAlpha;
    return est;
}

} // namespace kwb::stats
