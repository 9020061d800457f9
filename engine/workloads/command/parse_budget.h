// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "workloads/command/adapter.h"

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

// The repetition's timeout covers reading its output into metrics, not only running the command:
// a JSON array of 20 million numbers took 40 s to parse (seven times, once per adapter asked
// whether it recognises the output) under a 3 s timeout. While a ParseBudget is in scope on a
// thread, the adapters' text helpers (adapter_text.h) check its deadline and the run's stop
// request as they go and throw ParseInterrupted once either has come, and the whole output is
// parsed as JSON at most once, however many adapters look at it.
//
// A scope, not a parameter of Adapter::read(): every adapter parses through those helpers, and a
// new adapter cannot forget to pass it on.
namespace kwb::command {

class ParseInterrupted : public AdapterError {
public:
    ParseInterrupted(const std::string& what, bool stopped)
        : AdapterError(what)
        , stopped_(stopped)
    {
    }
    bool stopped() const { return stopped_; } // the run was asked to stop (else: the timeout)

private:
    bool stopped_;
};

class ParseBudget {
public:
    // `deadline_s` on steady_now_s()'s clock (process.h), <= 0 for none; `timeout_s` only words
    // the error. `output` is the whole text the adapters are given (the one parse that is kept).
    ParseBudget(double deadline_s, double timeout_s, const std::atomic<bool>* stop, const std::string& output);
    ~ParseBudget();
    ParseBudget(const ParseBudget&) = delete;
    ParseBudget& operator=(const ParseBudget&) = delete;

    // The budget in scope on this thread; null when none.
    static ParseBudget* current();
    // Throws ParseInterrupted when the deadline passed or a stop was asked for.
    void check() const;
    // The kept parse of `text` when `text` is the whole output and it was parsed; null otherwise.
    const std::optional<nlohmann::json>* kept(const std::string& text) const;
    void keep(const std::string& text, std::optional<nlohmann::json> parsed);

private:
    double deadline_s_;
    double timeout_s_;
    const std::atomic<bool>* stop_;
    const std::string& output_;
    std::optional<std::optional<nlohmann::json>> parsed_;
    ParseBudget* outer_;
};

// check() of the budget in scope; nothing without one.
void check_parse_budget();

} // namespace kwb::command
