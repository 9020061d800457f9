// SPDX-License-Identifier: GPL-3.0-or-later
#include "workloads/command/parse_budget.h"

#include "util/steady_clock.h"

#include <fmt/format.h>

namespace kwb::command {
namespace {

thread_local ParseBudget* t_current = nullptr;

} // namespace

ParseBudget::ParseBudget(double deadline_s, double timeout_s, const std::atomic<bool>* stop, const std::string& output)
    : deadline_s_(deadline_s)
    , timeout_s_(timeout_s)
    , stop_(stop)
    , output_(output)
    , outer_(t_current)
{
    t_current = this;
}

ParseBudget::~ParseBudget()
{
    t_current = outer_;
}

ParseBudget* ParseBudget::current()
{
    return t_current;
}

void ParseBudget::check() const
{
    if (stop_ && stop_->load())
        throw ParseInterrupted("stopped while its output was read: the run was asked to stop", true);
    if (deadline_s_ > 0 && steady_now_s() > deadline_s_)
        throw ParseInterrupted(fmt::format("timed out after {:.3g} s while its output ({:.4g} MiB) was read into "
                                           "metrics (the timeout covers running and reading)",
                                   timeout_s_, static_cast<double>(output_.size()) / (1024.0 * 1024.0)),
            false);
}

const std::optional<nlohmann::json>* ParseBudget::kept(const std::string& text) const
{
    return &text == &output_ && parsed_ ? &*parsed_ : nullptr;
}

void ParseBudget::keep(const std::string& text, std::optional<nlohmann::json> parsed)
{
    if (&text == &output_)
        parsed_ = std::move(parsed);
}

void check_parse_budget()
{
    if (const auto* b = ParseBudget::current())
        b->check();
}

} // namespace kwb::command
