// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run/aa_history.h"
#include "run/progress_line.h"
#include "run/run_observer.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <string>

// The progress stream of `kwb run --json-progress` (docs/progress-stream.md, version 1): one
// JSON object per line, flushed at once, so a reader (the GUI, or ssh) sees every event when it
// happens.
namespace kwb::cli {

// The stream's version is the engine's (run/progress_line.h), as are its events.
inline constexpr int kProgressStreamVersion = progress::kStreamVersion;

// Until a writer exists (and after it wrote `end`), an immediate exit of kwb run (a signal while
// the study loads, or a third one, stop_signal.h) ends the stream on `out` itself: `end` with
// `stopped`, 130. The writer takes that over while it writes.
void end_stream_on_immediate_exit(std::FILE* out);

class ProgressStreamWriter : public RunObserver {
public:
    // `on_broken` runs once, when a line cannot be written (the reader closed the pipe: EPIPE,
    // with SIGPIPE ignored); later lines are dropped. kwb run stops the run there, cleanly.
    //
    // A reader that stops reading (a stalled GUI) must not keep kwb from stopping: when `stop` is
    // given and the output is a pipe, lines are written without blocking; while the pipe is full
    // the writer waits, but gives the stream up as soon as `stop` is set, so SIGINT / SIGTERM still
    // end the run after the repetition in flight. The `end` event is still tried then, for a
    // bounded second, on a line of its own.
    ProgressStreamWriter(std::FILE* out, std::string study_path, std::function<void()> on_broken = {},
        const std::atomic<bool>* stop = nullptr);
    ~ProgressStreamWriter() override;

    void on_start(const Experiment& experiment, const RunStart& start) override;
    void on_sample(const Experiment& experiment, const Sample& sample, double t_s) override;
    void on_metric(const MetricReading& reading) override;
    void on_progress(const Experiment& experiment, const RunProgress& progress) override;
    void on_verdict(const Experiment& experiment) override;
    void on_error(const std::string& message, bool continues) override;
    void on_end(const std::string& status, int exit_code) override;
    // After an experiment's A/A arm was judged and recorded (run/aa_history.h): that device's
    // false-alarm rate over its whole history, or nullopt when the history could not be kept.
    void on_aa_history(
        const Experiment& experiment, const std::optional<AaFalseAlarmRate>& rate, const std::string& problem);

private:
    enum class Written { Whole, Gone, Stalled, StalledMidLine };
    void write(nlohmann::json line);
    // patience_ms < 0: wait on a full pipe until the stop flag is set; else at most that long.
    Written write_all(const std::string& text, int patience_ms);

    std::FILE* out_;
    std::string study_path_;
    std::function<void()> on_broken_;
    bool broken_ = false;
    bool stalled_ = false; // broken because the reader stalled during a stop (not gone)
    bool mid_line_ = false; // and a line was only partly written then
    const std::atomic<bool>* stop_ = nullptr;
    int fd_ = -1; // the descriptor written without blocking; -1: plain stdio
    int saved_flags_ = -1; // its flags before, restored on destruction
};

} // namespace kwb::cli
