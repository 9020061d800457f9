// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/run_observer.h"

#include <cstdio>
#include <string>

// The human progress line of `kwb run` on a terminal's stderr: one line redrawn in place with the
// experiment, a bar, done/planned, the last value and the time left. Only used when stderr is a
// terminal (a redrawn line in a log file is noise).
namespace kwb::cli {

class ProgressBar : public RunObserver {
public:
    explicit ProgressBar(std::FILE* out)
        : out_(out)
    {
    }

    void on_start(const Experiment& experiment, const RunStart& start) override;
    void on_sample(const Experiment& experiment, const Sample& sample, double t_s) override;
    void on_progress(const Experiment& experiment, const RunProgress& progress) override;
    void on_verdict(const Experiment& experiment) override;
    void on_error(const std::string& message, bool continues) override;
    void on_end(const std::string& status, int exit_code) override;

private:
    void finish_line();

    std::FILE* out_;
    std::string last_; // the last sample, e.g. "baseline #3 41.2 ms"
    std::string unit_;
    bool drawn_ = false;
};

} // namespace kwb::cli
