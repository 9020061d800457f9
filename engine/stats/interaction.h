// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The interaction of a two-variable grid: do the two changes' effects add up?
//
// Each cell (i, j) but the baseline cell (0, 0) was run as its own A/B against the baseline cell,
// so each has its own delta% d_ij (spec/verdict.md's definition, positive = better) measured
// against a baseline run interleaved with it; d_00 = 0. If the variables do not interact, a cell
// that changes both does as well as the two changes alone add up to: d_ij = d_i0 + d_0j. The
// interaction contrast of a cell with both variables changed (i >= 1 and j >= 1) is
//     I_ij = d_ij - (d_i0 + d_0j)        (points of delta%; for a 2x2 grid the single contrast is
//                                        the difference of differences)
// positive when the combination does better than the sum of its parts, negative when worse.
//
// Evidence:
//  - a 95% percentile-bootstrap CI of each contrast: every arm of every cell resampled with
//    replacement (same n), all deltas and contrasts recomputed, 10,000 times with a fixed seed
//    (the generator and draws of stats/bootstrap.h, arms in cell order, baseline before treatment);
//  - the two-way interaction F-test: the cells' deltas are fitted by the additive model
//    d_ij = a_i + b_j (a_0 = b_0 = 0) by weighted least squares, each cell weighted by its
//    precision 1 / (1/n_B + 1/n_T); the weighted residual sum of squares over its
//    (R-1)(C-1) degrees of freedom, divided by the run-to-run variance pooled from every arm (each
//    run as a delta% against its own cell's baseline mean, sum of (n - 1) degrees of freedom), is
//    F((R-1)(C-1), sum(n - 1)) when the effects add up. For a 2x2 grid it is the square of a
//    t-test of the one contrast.
// Flagged ("the effects do not add up"): for a 2x2 grid when the contrast's CI excludes 0; for a
// larger grid when the two-way test's p < 0.05 (one joint test, so the many contrasts do not
// multiply the chances of a false alarm).

#include "stats/bootstrap.h"
#include "util/direction.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kwb::stats {

inline constexpr double kInteractionAlpha = 0.05;

// The judged runs of one cell's two arms.
struct GridCellRuns {
    int row = 0;
    int col = 0;
    std::vector<double> baseline; // the baseline cell's runs in this cell's experiment
    std::vector<double> treatment; // this cell's runs
};

struct InteractionContrast {
    int row = 0;
    int col = 0;
    double measured_pct = 0; // d_ij
    double additive_pct = 0; // d_i0 + d_0j: what the effects alone add up to
    double interaction_pct = 0; // measured - additive
    std::optional<Interval> ci95; // null when an arm it involves has fewer than 2 runs
    bool ci_excludes_zero() const { return ci95 && ((*ci95)[0] > 0 || (*ci95)[1] < 0); }
};

struct InteractionEstimate {
    int rows = 0;
    int cols = 0;
    std::vector<std::vector<double>> delta_pct; // [row][col]; [0][0] is 0
    std::vector<InteractionContrast> contrasts; // the (R-1)(C-1) cells with both variables changed, row-major
    std::optional<double> f_two_way; // null when the runs leave no residual degrees of freedom
    std::optional<double> p_two_way; //   or have no spread at all
    int df_interaction = 0;
    int df_residual = 0;
    double pooled_variance = 0; // of per-run delta% (points^2)
    bool flagged = false; // the effects do not add up (rule above)
};

// Throws std::invalid_argument unless `cells` holds each cell but (0, 0) of a rows x cols grid
// (2 to 4 each) exactly once, each arm with at least one positive finite value.
InteractionEstimate estimate_interaction(int rows, int cols, const std::vector<GridCellRuns>& cells,
    Direction direction, int resamples = kBootstrapResamples, std::uint64_t seed = kBootstrapSeed);

} // namespace kwb::stats
