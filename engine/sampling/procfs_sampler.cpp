// SPDX-License-Identifier: GPL-3.0-or-later
#include "sampling/procfs_sampler.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
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

std::optional<std::pair<double, double>> parse_proc_stat_machine(const std::string& stat, long ticks_per_second)
{
    std::istringstream fields(stat);
    std::string label;
    if (ticks_per_second <= 0 || !(fields >> label) || label != "cpu")
        return std::nullopt;
    unsigned long long v[8] = {}; // user nice system idle iowait irq softirq steal
    for (int i = 0; i < 4; ++i) // the first four exist on every kernel
        if (!(fields >> v[i]))
            return std::nullopt;
    for (int i = 4; i < 8; ++i)
        if (!(fields >> v[i]))
            break;
    const double tps = static_cast<double>(ticks_per_second);
    const double busy = static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / tps;
    const double total = busy + static_cast<double>(v[3] + v[4]) / tps;
    return std::pair {busy, total};
}

std::optional<double> parse_schedstat_cpu_seconds(const std::string& schedstat)
{
    std::istringstream fields(schedstat);
    unsigned long long on_cpu_ns = 0;
    if (!(fields >> on_cpu_ns))
        return std::nullopt;
    return static_cast<double>(on_cpu_ns) * 1e-9;
}

std::optional<double> cpu_share_pct(double cpu_seconds, double wall_seconds, double cores)
{
    if (!(wall_seconds > 0) || !(cores > 0))
        return std::nullopt;
    return 100.0 * cpu_seconds / (wall_seconds * cores);
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
    if (const long n = sysconf(_SC_NPROCESSORS_ONLN); n > 0)
        online_cores_ = static_cast<double>(n);
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
    ProcfsCounters c {*cpu, *rss, std::nullopt, std::nullopt, std::nullopt};
    // Nanosecond clocks where the kernel has them; the ticks of stat otherwise.
    if (timespec ts {}; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        c.cpu_seconds = static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    // The main thread's CPU clock by its id (the kernel's per-thread CPU clock, as glibc's
    // pthread_getcpuclockid makes it): the kernel brings a running thread's time up to date on
    // read, where schedstat and stat lag by up to a tick.
    const pid_t main_thread = ::getpid();
    if (timespec ts {};
        clock_gettime(static_cast<clockid_t>((~static_cast<unsigned>(main_thread) << 3) | 6u), &ts) == 0)
        c.thread_cpu_seconds = static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    const std::string task = "/proc/self/task/" + std::to_string(main_thread);
    if (!c.thread_cpu_seconds)
        if (const auto sched = slurp((task + "/schedstat").c_str()))
            c.thread_cpu_seconds = parse_schedstat_cpu_seconds(*sched);
    if (!c.thread_cpu_seconds)
        if (const auto thread = slurp((task + "/stat").c_str()))
            c.thread_cpu_seconds = parse_proc_stat_cpu_seconds(*thread, ticks_per_second_);
    if (const auto machine = slurp("/proc/stat"))
        if (const auto m = parse_proc_stat_machine(*machine, ticks_per_second_)) {
            c.machine_busy_seconds = m->first;
            c.machine_total_seconds = m->second;
        }
    return c;
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
            const double wall = t - previous_t;
            sink({t - t0, "cpu_util", *cpu_share_pct(now->cpu_seconds - previous->cpu_seconds, wall, online_cores_),
                "%"});
            sink({t - t0, "rss", now->rss_mib, "MiB"});
            if (now->thread_cpu_seconds && previous->thread_cpu_seconds)
                sink({t - t0, "bench_thread_cpu",
                    *cpu_share_pct(*now->thread_cpu_seconds - *previous->thread_cpu_seconds, wall, 1), "%"});
            if (now->machine_total_seconds && previous->machine_total_seconds
                && *now->machine_total_seconds > *previous->machine_total_seconds) {
                const double total = *now->machine_total_seconds - *previous->machine_total_seconds;
                const double others = *now->machine_busy_seconds - *previous->machine_busy_seconds
                    - (now->cpu_seconds - previous->cpu_seconds);
                sink({t - t0, "other_cpu", std::clamp(100.0 * others / total, 0.0, 100.0), "%"});
            }
        }
        if (now) {
            previous = now;
            previous_t = t;
        }
        lock.lock();
    }
}

} // namespace kwb
