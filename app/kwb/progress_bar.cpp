// SPDX-License-Identifier: GPL-3.0-or-later
#include "progress_bar.h"

#include "builtin_workloads.h"

#include <algorithm>
#include <fmt/format.h>

namespace kwb::cli {

void ProgressBar::finish_line()
{
    if (drawn_)
        std::fputc('\n', out_);
    drawn_ = false;
}

void ProgressBar::on_start(const Experiment& e, const RunStart& start)
{
    unit_.clear();
    if (const auto* w = builtin_workloads().find(e.workload))
        for (const auto& m : w->metrics())
            if (m.name == e.metric)
                unit_ = m.unit;
    fmt::print(out_, "{}: {} on {}, {} x {} runs{}\n", e.id, e.workload, start.backend, e.arms.size(),
        start.runs_per_arm, start.done_before ? fmt::format(" (resuming after {})", start.done_before) : "");
    std::fflush(out_);
}

void ProgressBar::on_sample(const Experiment& e, const Sample& s, double /*t_s*/)
{
    const auto v = s.metrics.find(e.metric);
    last_ = fmt::format("{}{} #{} {}", s.warmup ? "warm-up " : "", s.arm, s.rep,
        v == s.metrics.end() ? std::string("-") : fmt::format("{:.4g} {}", v->second, unit_));
}

void ProgressBar::on_progress(const Experiment& e, const RunProgress& p)
{
    constexpr int width = 24;
    const int filled = p.planned > 0 ? std::min(width, p.done * width / p.planned) : 0;
    const std::string eta = p.eta_s ? fmt::format("  eta {:.0f}s", *p.eta_s) : std::string();
    fmt::print(out_, "\r\033[K{} [{}{}] {}/{}  {}{}", e.id, std::string(static_cast<size_t>(filled), '#'),
        std::string(static_cast<size_t>(width - filled), '.'), p.done, p.planned, last_, eta);
    std::fflush(out_);
    drawn_ = true;
}

void ProgressBar::on_verdict(const Experiment& /*experiment*/)
{
    finish_line();
}

void ProgressBar::on_error(const std::string& /*message*/, bool /*continues*/)
{
    finish_line(); // main prints the message itself
}

void ProgressBar::on_end(const std::string& /*status*/, int /*exit_code*/)
{
    finish_line();
}

} // namespace kwb::cli
