// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/procfs_sampler.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kwb {
namespace {

std::optional<std::string> slurp(const char* path)
{
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

double now_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

std::optional<double> parse_proc_stat_cpu_seconds(const std::string& stat, long ticks_per_second)
{
    // "pid (comm) state ppid ..." : comm may contain ") ", so fields start after the LAST ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos || ticks_per_second <= 0)
        return std::nullopt;
    std::istringstream fields(stat.substr(close + 1));
    // Fields 3.. of proc(5): state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    // cmajflt utime(14) stime(15).
    std::string token;
    for (int field = 3; field <= 13; ++field)
        if (!(fields >> token))
            return std::nullopt;
    unsigned long long utime = 0, stime = 0;
    if (!(fields >> utime >> stime))
        return std::nullopt;
    return static_cast<double>(utime + stime) / static_cast<double>(ticks_per_second);
}

std::optional<double> parse_proc_statm_rss_mib(const std::string& statm, long page_bytes)
{
    std::istringstream fields(statm);
    unsigned long long size = 0, resident = 0;
    if (page_bytes <= 0 || !(fields >> size >> resident))
        return std::nullopt;
    return static_cast<double>(resident) * static_cast<double>(page_bytes) / (1024.0 * 1024.0);
}

ProcfsSampler::ProcfsSampler()
{
    if (const long t = sysconf(_SC_CLK_TCK); t > 0)
        ticks_per_second_ = t;
    if (const long p = sysconf(_SC_PAGESIZE); p > 0)
        page_bytes_ = p;
}

ProcfsSampler::~ProcfsSampler()
{
    stop();
}

std::optional<ProcfsCounters> ProcfsSampler::read() const
{
    const auto stat = slurp("/proc/self/stat");
    const auto statm = slurp("/proc/self/statm");
    if (!stat || !statm)
        return std::nullopt;
    const auto cpu = parse_proc_stat_cpu_seconds(*stat, ticks_per_second_);
    const auto rss = parse_proc_statm_rss_mib(*statm, page_bytes_);
    if (!cpu || !rss)
        return std::nullopt;
    return ProcfsCounters {*cpu, *rss};
}

std::string ProcfsSampler::unavailable_reason() const
{
    return read() ? std::string() : std::string("procfs: /proc/self/stat or /proc/self/statm cannot be read");
}

void ProcfsSampler::start(MetricSink sink, double period_s)
{
    stop();
    {
        std::lock_guard lock(mutex_);
        stopping_ = false;
    }
    thread_ = std::thread([this, sink = std::move(sink), period_s] { loop(sink, period_s); });
}

void ProcfsSampler::stop()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable())
        thread_.join();
}

void ProcfsSampler::loop(MetricSink sink, double period_s)
{
    const double t0 = now_seconds();
    auto previous = read();
    double previous_t = t0;
    const auto period = std::chrono::duration<double>(period_s > 0 ? period_s : 0.2);
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
        lock.unlock();
        const double t = now_seconds();
        const auto now = read();
        if (now && previous && t > previous_t) {
            sink({t - t0, "cpu_util", 100.0 * (now->cpu_seconds - previous->cpu_seconds) / (t - previous_t), "%"});
            sink({t - t0, "rss", now->rss_mib, "MiB"});
        }
        if (now) {
            previous = now;
            previous_t = t;
        }
        lock.lock();
    }
}

} // namespace kwb
