// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <string>
#include <vector>

// Gates now and gates then. `kwb run` records, per experiment, the gates a study did not meet when
// that attempt ran (Experiment::missing_gates); the study may meet them since (a profile taken on
// phase 3 afterwards). A page that shows the recorded list as the study's state reads as false, so
// the two are told apart: study_gates (gates.h) is now, this is then, with when each attempt ran.
namespace kwb {

struct AttemptGates {
    std::string experiment_id;
    // When the attempt ran: its ledger entry's time (written when it finished), else its first
    // repetition's start; empty when neither was recorded.
    std::string ran_at;
    std::vector<std::string> missing; // the gates it ran without, as kwb run recorded them
};

// Every attempt of the study that ran (has samples), in the study's order.
std::vector<AttemptGates> attempt_gates(const Study& study);

} // namespace kwb
