// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether the study reader's fast path (read_study_fast: sample_scanner.cpp for the samples,
// nlohmann for the rest) reads a text exactly as the ordinary path does (nlohmann's DOM of the
// whole text, sample_from_json per sample). Shared by tst_study_samples_io and the fuzz target
// fuzz_sample_reader.
#include "study/study_fast_read.h"
#include "study/study_json.h"

#include <cmath>
#include <string>
#include <string_view>

namespace kwb::testing {

inline bool same_double(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

inline bool same_double(const std::optional<double>& a, const std::optional<double>& b)
{
    return a.has_value() == b.has_value() && (!a || same_double(*a, *b));
}

// The first field in which two samples differ (doubles to the bit but for NaN's payload), or "".
inline std::string differing_field(const Sample& a, const Sample& b)
{
    const auto same_map = [](const std::map<std::string, double>& x, const std::map<std::string, double>& y) {
        if (x.size() != y.size())
            return false;
        for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
            if (i->first != j->first || !same_double(i->second, j->second))
                return false;
        return true;
    };
    const auto same_list = [](const std::vector<double>& x, const std::vector<double>& y) {
        if (x.size() != y.size())
            return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (!same_double(x[i], y[i]))
                return false;
        return true;
    };
    const std::pair<const char*, bool> fields[] = {{"arm", a.arm == b.arm}, {"rep", a.rep == b.rep},
        {"position", a.position == b.position}, {"started_at", a.started_at == b.started_at},
        {"duration_s", same_double(a.duration_s, b.duration_s)}, {"metrics", same_map(a.metrics, b.metrics)},
        {"iterations", same_list(a.iterations, b.iterations)}, {"clock_mhz", same_double(a.clock_mhz, b.clock_mhz)},
        {"temperature_c", same_double(a.temperature_c, b.temperature_c)}, {"warmup", a.warmup == b.warmup},
        {"discarded", a.discarded == b.discarded}, {"throttled", a.throttled == b.throttled},
        {"note", a.note == b.note}, {"mem_clock_mhz", same_double(a.mem_clock_mhz, b.mem_clock_mhz)},
        {"power_w", same_double(a.power_w, b.power_w)}, {"throttle_reasons", a.throttle_reasons == b.throttle_reasons},
        {"launches", a.launches == b.launches}, {"failed", a.failed == b.failed},
        {"exit_status", a.exit_status == b.exit_status}, {"stdout_tail", a.stdout_tail == b.stdout_tail},
        {"stderr_tail", a.stderr_tail == b.stderr_tail}, {"adapter", a.adapter == b.adapter},
        {"fingerprint", a.fingerprint == b.fingerprint},
        {"peak_gpu_mem_mib", same_double(a.peak_gpu_mem_mib, b.peak_gpu_mem_mib)}, {"t_s", same_double(a.t_s, b.t_s)}};
    for (const auto& [name, same] : fields)
        if (!same)
            return name;
    return {};
}

// "" when the two paths agree on `text`: the fast path stepped aside (the ordinary path then
// decides alone), or its document and samples are exactly what the ordinary path gives. Else
// what differs.
inline std::string fast_read_disagreement(std::string_view text)
{
    const auto fast = read_study_fast(text);
    if (!fast)
        return {};
    nlohmann::json dom;
    try {
        dom = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        return std::string("the fast path read a text nlohmann refuses: ") + e.what();
    }
    nlohmann::json expected = dom; // the DOM with each samples array read directly emptied
    for (size_t i = 0; i < fast->samples.size(); ++i) {
        if (!fast->samples[i])
            continue;
        const auto at = "experiments[" + std::to_string(i) + "].samples";
        if (!dom.is_object() || !dom.contains("experiments") || !dom["experiments"].is_array()
            || dom["experiments"].size() <= i || !dom["experiments"][i].is_object()
            || !dom["experiments"][i].contains("samples") || !dom["experiments"][i]["samples"].is_array())
            return "the fast path read samples for " + at + ", which is not an array in the DOM";
        expected["experiments"][i]["samples"] = nlohmann::json::array();
        const auto& array = dom["experiments"][i]["samples"];
        if (array.size() != fast->samples[i]->size())
            return at + ": " + std::to_string(fast->samples[i]->size()) + " samples read, the DOM holds "
                + std::to_string(array.size());
        for (size_t j = 0; j < array.size(); ++j) {
            const auto path = at + "[" + std::to_string(j) + "]";
            Sample ordinary;
            try {
                ordinary = sample_from_json(JsonReader(array[j], path));
            } catch (const FormatError& e) {
                return "the fast path read a sample the ordinary path refuses: " + std::string(e.what());
            }
            if (const auto field = differing_field((*fast->samples[i])[j], ordinary); !field.empty())
                return path + "." + field + " differs";
        }
    }
    if (expected != fast->document)
        return "the document differs: " + fast->document.dump().substr(0, 200);
    return {};
}

} // namespace kwb::testing
