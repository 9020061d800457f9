// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/hardware_text.h"

#include <cmath>
#include <fmt/format.h>

namespace kwb {

std::string format_bytes(double bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (std::abs(bytes) >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    if (bytes == std::floor(bytes) && std::abs(bytes) < 1e15)
        return fmt::format("{} {}", static_cast<long long>(bytes), units[u]);
    return fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string cache_name(int level, std::string_view type)
{
    const char* suffix = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    return fmt::format("L{}{}", level, suffix);
}

std::string sm_name(std::string_view compute_capability)
{
    const auto dot = compute_capability.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == compute_capability.size()
        || compute_capability.find('.', dot + 1) != std::string_view::npos)
        return std::string(compute_capability);
    return fmt::format("sm_{}{}", compute_capability.substr(0, dot), compute_capability.substr(dot + 1));
}

} // namespace kwb
