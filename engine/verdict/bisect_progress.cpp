// SPDX-License-Identifier: GPL-3.0-or-later
#include "verdict/bisect_progress.h"

#include <algorithm>

namespace kwb {

BisectProgress bisect_progress(const Study& study, const std::vector<std::string>& commits)
{
    BisectProgress p;
    const std::vector<BisectPathRow> all = bisect_path(study);
    if (all.empty())
        return p;
    p.good_sha = all.back().good_sha; // a later search against another good commit starts over
    for (const auto& row : all)
        if (row.good_sha == p.good_sha)
            p.steps.push_back(row);
    p.range_low = p.good_sha;
    for (const auto& row : p.steps) {
        if (row.call.outcome == StepOutcome::Good)
            p.range_low = row.candidate_sha;
        else if (row.call.outcome == StepOutcome::Bad)
            p.range_high = row.candidate_sha;
    }
    const size_t n = p.steps.size();
    p.stopped_inconclusive = n >= 2 && p.steps[n - 1].call.outcome == StepOutcome::Inconclusive
        && p.steps[n - 2].call.outcome == StepOutcome::Inconclusive
        && p.steps[n - 1].candidate_sha == p.steps[n - 2].candidate_sha;
    if (commits.empty()) {
        // The search's own record (schema 9): kwb bisect wrote the commits left after each call.
        const Experiment* newest = study.find_experiment(p.steps.back().experiment);
        if (newest && newest->bisect) {
            p.bad_sha = newest->bisect->bad_sha;
            p.commits_in_range = newest->bisect->commits_in_range;
            p.commits_left = newest->bisect->commits_left;
            if (p.commits_left == 0 && !p.stopped_inconclusive)
                p.first_bad = p.range_high.empty() ? newest->bisect->bad_sha : p.range_high;
        }
        return p;
    }
    const auto index = [&](const std::string& sha) {
        const auto it = std::find(commits.begin(), commits.end(), sha);
        return it == commits.end() ? -2 : static_cast<int>(it - commits.begin());
    };
    const int lo = p.range_low == p.good_sha ? -1 : index(p.range_low);
    const int hi = p.range_high.empty() ? static_cast<int>(commits.size()) - 1 : index(p.range_high);
    if (lo == -2 || hi == -2 || hi <= lo)
        return p; // the commits are not this search's
    p.commits_left = hi - lo - 1;
    if (p.commits_left == 0)
        p.first_bad = commits[static_cast<size_t>(hi)];
    return p;
}

} // namespace kwb
