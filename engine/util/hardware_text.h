// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How a hardware sheet's numbers read, shared by `kwb devices` and the GUI's sheet (which reads
// kwb's JSON and must not link the hardware query itself), so the two never disagree.

#include <string>
#include <string_view>

namespace kwb {

// Binary units, because caches and shared memory are sized in them: 49152 -> "48 KiB",
// 25276059648 -> "23.5 GiB". Exact multiples print without decimals, others with one.
std::string format_bytes(double bytes);

// A cache as the CPU's sheet names it: level 1 "Data" -> "L1d", "Instruction" -> "L1i",
// level 2 "Unified" -> "L2".
std::string cache_name(int level, std::string_view type);

// "9.0" -> "sm_90"; anything that is not MAJOR.MINOR comes back unchanged.
std::string sm_name(std::string_view compute_capability);

} // namespace kwb
