// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sampling/sampler.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

// The CPU sampler: reads this process's own counters on its own thread. Every percentage says
// what it is a share of, and so stays within [0, 100] (study/lane_range.h clamps the skew):
//   cpu_util (%): CPU time (user + system, all threads) over wall time between two readings, as a
//                 percentage of the whole machine (all online cores): 2 busy threads on a 16-core
//                 machine read 12.5. (Before, a percentage of one core: 104.8 on a CPU run whose
//                 benchmark thread filled a core while the sampler threads added the rest.)
//   rss (MiB):    resident set size.
//   other_cpu (%): CPU time every other process used (/proc/stat's busy time less this
//                 process's), as a percentage of the whole machine: a neighbour's build reads 50
//                 on a 2-core machine whose other core it fills.
//   bench_thread_cpu (%): CPU time of the thread that runs the repetitions (kwb's main thread,
//                 whose id is the process id) as a percentage of one core, which one thread cannot
//                 exceed: below 100 while a CPU workload runs, the scheduler gave its core to
//                 someone else.
// CPU times are read in nanoseconds (CLOCK_PROCESS_CPUTIME_ID; the main thread's CPU clock), not in
// /proc/<pid>/stat's clock ticks: at 100 ticks a second over a 0.2 s period a tick is 5 points,
// which is how a thread that cannot use more than one core read 104.8 % of one.
// The last two are what names a busy machine in a verdict (study/machine_load.h).
// A workload runs in the kwb process itself, so "self" is exactly the run being measured; the
// GPU samplers later deliver through the same Sampler interface.
namespace kwb {

// One reading of /proc/self/stat and /proc/self/statm.
struct ProcfsCounters {
    double cpu_seconds = 0; // utime + stime
    double rss_mib = 0;
    std::optional<double> thread_cpu_seconds; // the main thread's utime + stime
    std::optional<double> machine_busy_seconds; // /proc/stat, all CPUs
    std::optional<double> machine_total_seconds; // busy + idle + iowait
};

// The first line of /proc/stat ("cpu  user nice system idle iowait irq softirq steal ..."):
// {busy, total} in seconds, or nullopt when it is not in that shape.
std::optional<std::pair<double, double>> parse_proc_stat_machine(const std::string& stat, long ticks_per_second);

// Parses the text of /proc/<pid>/stat (whose second field, the command name, may hold spaces and
// parentheses) and of /proc/<pid>/statm. nullopt when the text is not in that shape.
std::optional<double> parse_proc_stat_cpu_seconds(const std::string& stat, long ticks_per_second);
std::optional<double> parse_proc_statm_rss_mib(const std::string& statm, long page_bytes);
// /proc/<pid>/task/<tid>/schedstat ("on-cpu-ns wait-ns timeslices"): seconds on a CPU.
std::optional<double> parse_schedstat_cpu_seconds(const std::string& schedstat);
// A CPU time over wall time as a percentage of `cores` cores (nullopt without a positive span).
std::optional<double> cpu_share_pct(double cpu_seconds, double wall_seconds, double cores);

class ProcfsSampler : public Sampler {
public:
    ProcfsSampler();
    ~ProcfsSampler() override;

    std::string name() const override { return "procfs"; }
    std::string unavailable_reason() const override;
    void start(MetricSink sink, double period_s) override;
    void stop() override;

    std::optional<ProcfsCounters> read() const;

private:
    void loop(MetricSink sink, double period_s);

    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    long ticks_per_second_ = 100;
    long page_bytes_ = 4096;
    double online_cores_ = 1;
};

} // namespace kwb
