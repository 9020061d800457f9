// SPDX-License-Identifier: GPL-3.0-or-later
#include "progress_stream.h"

#include "builtin_workloads.h"
#include "commands.h"
#include "run/progress_events.h"
#include "stop_signal.h"
#include "study/study_file.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kwb::cli {
namespace {

using nlohmann::json;

json unit_and_direction(const Experiment& e)
{
    json j = {{"unit", ""}, {"direction", "lower"}};
    if (const auto* w = builtin_workloads().find(e.workload))
        for (const auto& m : w->metrics())
            if (m.name == e.metric)
                j = {{"unit", m.unit}, {"direction", to_string(m.direction)}};
    return j;
}

std::string end_line(const std::string& status, int exit_code)
{
    return progress::line(progress::end_event(status, exit_code));
}

// How long the `end` event waits for room in a pipe whose reader had stalled: a reader that only
// paused gets it, one that hung does not keep kwb.
constexpr int kEndPatienceMs = 1000;

} // namespace

void end_stream_on_immediate_exit(std::FILE* out)
{
    set_exit_stream(::fileno(out), end_line("stopped", kStopped));
}

ProgressStreamWriter::ProgressStreamWriter(
    std::FILE* out, std::string study_path, std::function<void()> on_broken, const std::atomic<bool>* stop)
    : out_(out)
    , study_path_(std::move(study_path))
    , on_broken_(std::move(on_broken))
    , stop_(stop)
{
    // Only a pipe or FIFO gets O_NONBLOCK: a terminal's file description is shared with the shell,
    // which must not find its terminal non-blocking after kwb exits; a file never blocks for long.
    struct stat st = {};
    const int fd = ::fileno(out_);
    if (stop_ && fd >= 0 && ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        std::fflush(out_);
        saved_flags_ = ::fcntl(fd, F_GETFL);
        if (saved_flags_ >= 0 && ::fcntl(fd, F_SETFL, saved_flags_ | O_NONBLOCK) == 0)
            fd_ = fd;
    }
    end_stream_on_immediate_exit(out_);
}

ProgressStreamWriter::~ProgressStreamWriter()
{
    set_exit_stream(-1, "");
    if (fd_ >= 0)
        ::fcntl(fd_, F_SETFL, saved_flags_);
}

ProgressStreamWriter::Written ProgressStreamWriter::write_all(const std::string& text, int patience_ms)
{
    set_stream_mid_line(true); // an immediate exit (stop_signal.h) then starts its line on a new one
    if (fd_ < 0) {
        const bool ok = std::fputs(text.c_str(), out_) >= 0 && std::fflush(out_) == 0;
        set_stream_mid_line(!ok);
        return ok ? Written::Whole : Written::Gone;
    }
    const char* data = text.data();
    size_t left = text.size();
    int waited_ms = 0;
    while (left > 0) {
        const ssize_t n = ::write(fd_, data, left);
        if (n > 0) {
            data += n;
            left -= static_cast<size_t>(n);
            continue;
        }
        const bool part = left < text.size();
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return Written::Gone; // EPIPE: the reader went away
        // A stop was asked for and the reader does not read: give the stream up (patience 0), or
        // wait that long at most (the `end` event).
        if (patience_ms < 0 ? stop_->load() : waited_ms >= patience_ms)
            return part ? Written::StalledMidLine : Written::Stalled;
        pollfd p = {fd_, POLLOUT, 0};
        ::poll(&p, 1, 100); // wakes on room in the pipe, on a signal (EINTR) or after 0.1 s
        waited_ms += 100;
    }
    set_stream_mid_line(false);
    return Written::Whole;
}

void ProgressStreamWriter::write(json line)
{
    if (broken_)
        return;
    const Written w = write_all(progress::line(line), -1);
    if (w == Written::Whole)
        return;
    broken_ = true;
    stalled_ = w != Written::Gone;
    mid_line_ = w == Written::StalledMidLine;
    if (on_broken_)
        on_broken_();
}

void ProgressStreamWriter::on_start(const Experiment& e, const RunStart& start)
{
    const json ud = unit_and_direction(e);
    write(progress::start_event(study_path_, e, start, ud.at("unit"), ud.at("direction"), utc_now_iso8601()));
}

void ProgressStreamWriter::on_sample(const Experiment& e, const Sample& s, double t_s)
{
    write(progress::sample_event(e, s, t_s));
}

void ProgressStreamWriter::on_metric(const MetricReading& r)
{
    write(progress::metric_event(r));
}

void ProgressStreamWriter::on_progress(const Experiment& e, const RunProgress& p)
{
    write(progress::progress_event(e, p));
}

void ProgressStreamWriter::on_verdict(const Experiment& e)
{
    write(progress::verdict_event(e));
}

void ProgressStreamWriter::on_aa_history(
    const Experiment& e, const std::optional<AaFalseAlarmRate>& rate, const std::string& problem)
{
    write(progress::aa_history_event(e, rate, problem));
}

void ProgressStreamWriter::on_error(const std::string& message, bool continues)
{
    write(progress::error_event(message, continues));
}

void ProgressStreamWriter::on_end(const std::string& status, int exit_code)
{
    set_exit_stream(-1, ""); // this is the end: an immediate exit from here adds none
    if (!broken_) {
        write(progress::end_event(status, exit_code));
        return;
    }
    // Given up on a stalled reader: the stream is still open, so its end is still owed, on a line
    // of its own, within a bounded wait.
    if (stalled_)
        (void)write_all((mid_line_ ? "\n" : "") + end_line(status, exit_code), kEndPatienceMs);
}

} // namespace kwb::cli
