// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>

namespace kwb {

// The steady clock in seconds: the clock of deadlines and of ProcessResult::started_s.
inline double steady_now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace kwb
