// SPDX-License-Identifier: GPL-3.0-or-later
#include "study/attempt_gates.h"

#include <algorithm>

namespace kwb {

std::vector<AttemptGates> attempt_gates(const Study& study)
{
    std::vector<AttemptGates> out;
    for (const Experiment& e : study.experiments) {
        if (e.samples.empty())
            continue;
        AttemptGates a;
        a.experiment_id = e.id;
        a.missing = e.missing_gates;
        // The ledger's entry is the attempt as it finished; the last one, if it was continued.
        for (const LedgerEntry& l : study.ledger)
            if (l.experiment_id == e.id && !l.at.empty())
                a.ran_at = l.at;
        if (a.ran_at.empty()) {
            // ISO 8601 UTC strings of one format sort as times: the earliest start.
            for (const Sample& s : e.samples)
                if (!s.started_at.empty() && (a.ran_at.empty() || s.started_at < a.ran_at))
                    a.ran_at = s.started_at;
        }
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace kwb
