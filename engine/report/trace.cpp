// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/trace.h"

#include <cstdio>
#include <ctime>
#include <fmt/format.h>

namespace kwb::report {

using nlohmann::json;

std::optional<double> iso8601_to_us(const std::string& text)
{
    std::tm tm {};
    double seconds = 0;
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
            &tm.tm_min, &seconds, &consumed)
        != 6)
        return std::nullopt;
    if (text.substr(static_cast<std::size_t>(consumed)) != "Z")
        return std::nullopt; // the study writes UTC only
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_sec = 0;
    const std::time_t t = timegm(&tm);
    if (t == static_cast<std::time_t>(-1))
        return std::nullopt;
    return (static_cast<double>(t) + seconds) * 1e6;
}

json trace_of(const Study& study)
{
    json events = json::array();
    int pid = 0;
    for (const auto& e : study.experiments) {
        ++pid;
        events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
            {"args", {{"name", fmt::format("{} {} ({}, {})", study.name, e.id, e.workload, e.backend)}}}});
        events.push_back(
            {{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
        for (std::size_t a = 0; a < e.arms.size(); ++a) {
            const int tid = static_cast<int>(a) + 1;
            events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                {"args", {{"name", e.arms[a].name}}}});
            events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                {"args", {{"sort_index", tid}}}});
        }
        std::optional<double> t0;
        for (const auto& s : e.samples) {
            const auto ts = iso8601_to_us(s.started_at);
            if (!ts)
                continue;
            if (!t0 || *ts < *t0)
                t0 = ts;
            int tid = 0;
            for (std::size_t a = 0; a < e.arms.size(); ++a)
                if (e.arms[a].name == s.arm)
                    tid = static_cast<int>(a) + 1;
            json args = {{"arm", s.arm}, {"rep", s.rep}, {"position", s.position}, {"warmup", s.warmup},
                {"discarded", s.discarded}, {"throttled", s.throttled}};
            for (const auto& [m, v] : s.metrics)
                args[m] = v;
            if (s.clock_mhz)
                args["clock_mhz"] = *s.clock_mhz;
            if (s.launches)
                args["launches"] = *s.launches;
            if (!s.note.empty())
                args["note"] = s.note;
            events.push_back(
                {{"name",
                     s.warmup ? fmt::format("warm-up {} {}", s.arm, s.rep) : fmt::format("{} rep {}", s.arm, s.rep)},
                    {"cat",
                        s.warmup          ? "warmup"
                            : s.discarded ? "discarded"
                                          : "repetition"},
                    {"ph", "X"}, {"ts", *ts}, {"dur", s.duration_s * 1e6}, {"pid", pid}, {"tid", tid}, {"args", args}});
        }
        // Lanes count seconds from the experiment's start, just before its first repetition.
        if (!t0)
            continue;
        for (const auto& l : e.lanes)
            for (std::size_t k = 0; k < l.values.size() && k < l.t_s.size(); ++k)
                events.push_back({{"name", l.unit.empty() ? l.name : fmt::format("{} ({})", l.name, l.unit)},
                    {"ph", "C"}, {"ts", *t0 + l.t_s[k] * 1e6}, {"pid", pid}, {"args", {{l.name, l.values[k]}}}});
    }
    return {{"traceEvents", events}, {"displayTimeUnit", "ms"},
        {"otherData", {{"generator", "kwb " KWB_VERSION}, {"study", study.name}}}};
}

} // namespace kwb::report
