// SPDX-License-Identifier: GPL-3.0-or-later
#include "progress_stream.h"

#include "builtin_workloads.h"
#include "commands.h"
#include "stop_signal.h"
#include "study/study_file.h"
#include "verdict/aa_verdict.h"
#include "verdict/verdict_json.h"

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

// One line of the stream: "type" and "v" lead, so a person reading the stream sees them first;
// invalid UTF-8 in a message (a workload's error text) is replaced rather than aborting the stream.
std::string line_text(const json& line)
{
    std::string text = "{\"type\":" + line.at("type").dump() + ",\"v\":" + std::to_string(kProgressStreamVersion);
    for (const auto& [key, value] : line.items())
        if (key != "type")
            text += "," + json(key).dump() + ":" + value.dump(-1, ' ', false, json::error_handler_t::replace);
    return text + "}\n";
}

std::string end_line(const std::string& status, int exit_code)
{
    return line_text({{"type", "end"}, {"status", status}, {"exit_code", exit_code}});
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
    const Written w = write_all(line_text(line), -1);
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
    json arms = json::array();
    for (const auto& a : e.arms)
        arms.push_back(a.name);
    const json ud = unit_and_direction(e);
    write({{"type", "start"}, {"study", study_path_}, {"experiment", e.id}, {"workload", e.workload},
        {"backend", start.backend}, {"metric", e.metric}, {"unit", ud.at("unit")}, {"direction", ud.at("direction")},
        {"plan",
            {{"arms", arms}, {"runs_per_arm", start.runs_per_arm}, {"warmup_runs", e.plan.warmup_runs},
                {"order", start.order}, {"order_truncated", start.order_truncated},
                {"order_rule", to_string(e.plan.order)}, {"seed", e.plan.seed}, {"stop", to_string(e.plan.stop)},
                {"duration_s", e.plan.duration_s}, {"max_seconds", e.plan.max_seconds},
                {"split_halves", e.plan.split_halves}}},
        {"done_before", start.done_before}, {"at", utc_now_iso8601()}});
}

void ProgressStreamWriter::on_sample(const Experiment& e, const Sample& s, double t_s)
{
    json flags = json::array();
    if (s.throttled)
        flags.push_back("throttled");
    if (s.discarded)
        flags.push_back("discarded");
    const auto value = s.metrics.find(e.metric);
    json line = {{"type", "sample"}, {"experiment", e.id}, {"arm", s.arm}, {"rep", s.rep}, {"position", s.position},
        {"value", value == s.metrics.end() ? json(nullptr) : json(value->second)}, {"values", s.metrics},
        {"duration_s", s.duration_s}, {"t_s", t_s}, {"warmup", s.warmup}, {"flags", flags}};
    if (!s.note.empty())
        line["note"] = s.note;
    write(std::move(line));
}

void ProgressStreamWriter::on_metric(const MetricReading& r)
{
    write({{"type", "metric"}, {"t_s", r.t_s}, {"name", r.name}, {"value", r.value}, {"unit", r.unit}});
}

void ProgressStreamWriter::on_progress(const Experiment& e, const RunProgress& p)
{
    write({{"type", "progress"}, {"experiment", e.id}, {"done", p.done}, {"planned", p.planned},
        {"elapsed_s", p.elapsed_s}, {"eta_s", p.eta_s ? json(*p.eta_s) : json(nullptr)}});
}

void ProgressStreamWriter::on_verdict(const Experiment& e)
{
    json split_half = nullptr;
    if (e.split_half)
        split_half = {{"splits", e.split_half->splits}, {"false_alarms", e.split_half->false_alarms},
            {"false_alarm_rate", e.split_half->false_alarm_rate()}, {"verdicts", e.split_half->verdicts}};
    write({{"type", "verdict"}, {"experiment", e.id}, {"verdict", e.verdict ? to_json(*e.verdict) : json(nullptr)},
        {"final_verdict", e.final_verdict ? to_json(*e.final_verdict) : json(nullptr)}, {"status", to_string(e.status)},
        {"stop_reason", e.stop_reason}, {"split_half_check", split_half}, {"missing_gates", e.missing_gates},
        {"aa",
            e.aa_verdict ? json {{"summary", aa_summary(*e.aa_verdict)}, {"verdict", to_json(*e.aa_verdict)},
                {"false_alarm", aa_false_alarm(*e.aa_verdict)}}
                         : json(nullptr)}});
}

void ProgressStreamWriter::on_aa_history(
    const Experiment& e, const std::optional<AaFalseAlarmRate>& rate, const std::string& problem)
{
    json line = {{"type", "aa_history"}, {"experiment", e.id}, {"device", e.device.model}};
    if (rate) {
        line["runs"] = rate->runs;
        line["false_alarms"] = rate->false_alarms;
        line["false_alarm_rate"] = rate->rate;
        line["ci95"] = rate->ci95;
        line["summary"] = describe(*rate);
    } else {
        line["problem"] = problem;
    }
    write(std::move(line));
}

void ProgressStreamWriter::on_error(const std::string& message, bool continues)
{
    write({{"type", "error"}, {"message", message}, {"continues", continues}});
}

void ProgressStreamWriter::on_end(const std::string& status, int exit_code)
{
    set_exit_stream(-1, ""); // this is the end: an immediate exit from here adds none
    if (!broken_) {
        write({{"type", "end"}, {"status", status}, {"exit_code", exit_code}});
        return;
    }
    // Given up on a stalled reader: the stream is still open, so its end is still owed, on a line
    // of its own, within a bounded wait.
    if (stalled_)
        (void)write_all((mid_line_ ? "\n" : "") + end_line(status, exit_code), kEndPatienceMs);
}

} // namespace kwb::cli
