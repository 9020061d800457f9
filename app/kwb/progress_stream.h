// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/run_observer.h"

#include <cstdio>
#include <string>

// The progress stream of `kwb run --json-progress` (docs/progress-stream.md, version 1): one
// JSON object per line, flushed at once, so a reader (the GUI, or ssh) sees every event when it
// happens.
namespace kwb::cli {

inline constexpr int kProgressStreamVersion = 1;

class ProgressStreamWriter : public RunObserver {
public:
    ProgressStreamWriter(std::FILE* out, std::string study_path);

    void on_start(const Experiment& experiment, const RunStart& start) override;
    void on_sample(const Experiment& experiment, const Sample& sample, double t_s) override;
    void on_metric(const MetricReading& reading) override;
    void on_progress(const Experiment& experiment, const RunProgress& progress) override;
    void on_verdict(const Experiment& experiment) override;
    void on_error(const std::string& message, bool continues) override;
    void on_end(const std::string& status, int exit_code) override;

private:
    void write(nlohmann::json line);

    std::FILE* out_;
    std::string study_path_;
};

} // namespace kwb::cli
