// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/worker/output_check.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace kwb::worker {

std::string read_output(const OutputFile& file, std::vector<float>& values)
{
    values.clear();
    static_assert(std::endian::native == std::endian::little, "outputs are exchanged as little-endian float32");
    std::error_code ec;
    const auto size = std::filesystem::file_size(file.path, ec);
    if (ec)
        return fmt::format("the output file {} was not written ({})", file.path, ec.message());
    const auto expected = static_cast<unsigned long long>(file.elements) * 4u;
    if (size != expected)
        return fmt::format("the output file {} holds {} bytes, not {} ({} float32 elements)", file.path, size, expected,
            file.elements);
    std::vector<float> read(static_cast<size_t>(file.elements));
    std::ifstream in(file.path, std::ios::binary);
    in.read(reinterpret_cast<char*>(read.data()), static_cast<std::streamsize>(expected));
    if (static_cast<unsigned long long>(in.gcount()) != expected)
        return fmt::format("the output file {} could not be read whole", file.path);
    for (size_t i = 0; i < read.size(); ++i)
        if (!std::isfinite(read[i]))
            return fmt::format("element {} of {} is {} (NaN: not written by the kernel, or a wrong result)", i,
                read.size(), std::isnan(read[i]) ? "NaN" : "infinite");
    values = std::move(read);
    return {};
}

OutputCheck check_output(const OutputFile& file)
{
    OutputCheck c;
    std::vector<float> values;
    c.detail = read_output(file, values);
    c.ok = c.detail.empty();
    if (c.ok)
        c.detail = fmt::format("{} float32 elements, all finite", values.size());
    return c;
}

OutputCheck compare_with_baseline(const OutputFile& treatment, const OutputFile& baseline)
{
    OutputCheck c;
    std::vector<float> t, b;
    if (const auto problem = read_output(treatment, t); !problem.empty()) {
        c.detail = problem;
        return c;
    }
    if (const auto problem = read_output(baseline, b); !problem.empty()) {
        c.detail = fmt::format("the baseline's output: {}", problem);
        return c;
    }
    if (t.size() != b.size()) {
        c.detail = fmt::format("{} elements, the baseline's output has {}", t.size(), b.size());
        return c;
    }
    size_t worst = 0;
    double worst_excess = -1;
    size_t failing = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        const double diff = std::fabs(static_cast<double>(t[i]) - b[i]);
        const double bound = treatment.atol + treatment.rtol * std::fabs(static_cast<double>(b[i]));
        c.max_abs_error = std::max(c.max_abs_error, diff);
        if (b[i] != 0)
            c.max_rel_error = std::max(c.max_rel_error, diff / std::fabs(static_cast<double>(b[i])));
        if (diff > bound)
            ++failing;
        if (diff - bound > worst_excess) {
            worst_excess = diff - bound;
            worst = i;
            c.tolerance = bound;
        }
    }
    c.ok = failing == 0;
    c.detail = c.ok ? fmt::format("{} float32 elements against the baseline's output (atol {:g}, rtol {:g})", t.size(),
                   treatment.atol, treatment.rtol)
                    : fmt::format("{} of {} elements outside atol {:g} + rtol {:g} of the baseline's output (worst: "
                                  "element {}, {:g} vs {:g})",
                        failing, t.size(), treatment.atol, treatment.rtol, worst, t[worst], b[worst]);
    return c;
}

} // namespace kwb::worker
