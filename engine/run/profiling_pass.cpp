// SPDX-License-Identifier: GPL-3.0-or-later
#include "run/profiling_pass.h"

#include "hardware/nvml_monitor.h"
#include "sampling/cupti_metrics.h"
#include "study/lane_range.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sys/resource.h>
#include <thread>

namespace kwb {
namespace {

using Clock = std::chrono::steady_clock;

double since_ms(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

RepetitionResult run(PreparedWorkload& w, const Arm& arm, int position)
{
    w.set_run(arm.name, position);
    auto r = w.run_once();
    if (r.failed)
        throw WorkloadError(r.error.empty() ? std::string("a repetition failed") : r.error);
    return r;
}

// The time one repetition's launches took (the timed region), per launch.
std::optional<double> ms_per_launch(const RepetitionResult& r)
{
    if (!r.total_ms || !r.launches || *r.launches <= 0) {
        const auto it = r.metrics.find("time_ms");
        return it == r.metrics.end() ? std::nullopt : std::optional<double>(it->second);
    }
    return *r.total_ms / *r.launches;
}

// Sizes a repetition to about `target_ms` from a one-launch reading, where the workload lets it.
int size_repetitions(PreparedWorkload& w, const Arm& arm, double target_ms)
{
    if (!w.set_launches(1))
        return 0;
    run(w, arm, -2);
    const auto one = ms_per_launch(run(w, arm, -1));
    const int launches = one && *one > 0 ? static_cast<int>(std::clamp(target_ms / *one, 1.0, 100000.0)) : 1;
    w.set_launches(launches);
    return launches;
}

// PM sampling on its own thread: start, decode every 2 ms, stop and drain, like the live
// sampler (the plugin's PM calls belong to one thread).
class PmCollector {
public:
    PmCollector(const KwbGpuBackendApi* api, KwbPmSampler* pm, std::vector<std::string> lanes)
        : api_(api)
        , pm_(pm)
        , lanes_(std::move(lanes))
    {
    }
    ~PmCollector()
    {
        stop_ = true;
        if (thread_.joinable())
            thread_.join();
    }
    PmCollector(const PmCollector&) = delete;
    PmCollector& operator=(const PmCollector&) = delete;
    // Empty when sampling started; else the reason.
    std::string start()
    {
        thread_ = std::thread([this] { loop(); });
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return started_; });
        return error_;
    }
    // Stops, drains and returns the samples (and the first error, if any).
    std::vector<PmWindow> finish(std::string& error)
    {
        stop_ = true;
        if (thread_.joinable())
            thread_.join();
        error = error_;
        return std::move(samples_);
    }
    // Per lane, the readings the range rule dropped (after finish()).
    const std::map<std::string, int>& dropped() const { return dropped_; }

private:
    void loop()
    {
        const char* error = nullptr;
        const bool ok = api_->pm_start(pm_, &error) == 0;
        {
            std::lock_guard lock(mutex_);
            started_ = true;
            if (!ok)
                error_ = error ? error : "cuptiPmSamplingStart failed";
            start_ns_ = api_->gpu_timestamp_ns();
        }
        cv_.notify_all();
        if (!ok)
            return;
        while (!stop_ && decode() >= 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (api_->pm_stop(pm_, &error) != 0 && error_.empty())
            error_ = error ? error : "cuptiPmSamplingStop failed";
        while (decode() > 0) { }
    }
    // Decodes what has arrived; the count, or -1 after an error.
    int decode()
    {
        KwbPmSample buffer[64];
        int total = 0;
        for (;;) {
            const char* error = nullptr;
            const int n = api_->pm_decode(pm_, buffer, 64, &error);
            if (n < 0) {
                if (error_.empty())
                    error_ = error ? error : "cuptiPmSamplingDecodeData failed";
                return -1;
            }
            for (int i = 0; i < n; ++i) {
                // The first sample after a start reaches back before it (notes, pitfall 1).
                if (buffer[i].start_ns < start_ns_)
                    continue;
                PmWindow w {buffer[i].start_ns, buffer[i].end_ns, {}};
                // Through the range rule, as the live lanes are: a reading it drops leaves its
                // lane out of this window (the kernel's mean is over the windows that have it).
                const auto values = cupti_lane_values(buffer[i].values);
                for (size_t m = 0; m < lanes_.size(); ++m)
                    if (const auto checked = check_lane_reading(kCuptiLanes[m].unit, values[m]); checked.keep)
                        w.values[lanes_[m]] = checked.value;
                    else
                        ++dropped_[lanes_[m]];
                samples_.push_back(std::move(w));
            }
            total += n;
            if (n < 64)
                return total;
        }
    }

    const KwbGpuBackendApi* api_;
    KwbPmSampler* pm_;
    std::vector<std::string> lanes_;
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool started_ = false;
    std::atomic<bool> stop_ {false};
    std::string error_;
    std::uint64_t start_ns_ = 0;
    std::vector<PmWindow> samples_;
    std::map<std::string, int> dropped_; // lane -> readings the range rule dropped
};

std::vector<KernelRecord> parse_activity(const char* text, std::string& error)
{
    std::vector<KernelRecord> out;
    try {
        const auto j = nlohmann::json::parse(text ? text : "null");
        if (j.contains("error")) {
            error = j.at("error").get<std::string>();
            return out;
        }
        for (const auto& k : j.at("kernels"))
            out.push_back({k.at("name").get<std::string>(), k.at("start_ns").get<std::uint64_t>(),
                k.at("end_ns").get<std::uint64_t>()});
    } catch (const std::exception& ex) {
        error = std::string("activity records: ") + ex.what();
    }
    return out;
}

// blocks_per_sm and shared memory per block of the configuration, as the plugin checks it.
void config_occupancy(
    const KwbGpuBackendApi* api, const Workload& w, const Arm& arm, int device, BindingEvidenceInput& in)
{
    if (!api || !api->check_config)
        return;
    try {
        const auto params = resolve_params(w, arm.params, Backend::Cuda);
        const auto j = nlohmann::json::parse(api->check_config(w.name().c_str(), params.dump().c_str(), device));
        // A library call (cuBLASLt) picks its own kernel at run time: the checked figures are not its.
        if (j.value("ok", false) && j.value("config", "") != "cublaslt") {
            if (j.contains("blocks_per_sm") && j["blocks_per_sm"].is_number())
                in.blocks_per_sm = j["blocks_per_sm"].get<int>();
            if (j.contains("smem_bytes_per_block") && j["smem_bytes_per_block"].is_number())
                in.smem_per_block_kib = j["smem_bytes_per_block"].get<double>() / 1024.0;
        }
    } catch (const std::exception&) {
        // No configuration figures: the smem branch stays unmeasured.
    }
}

// NVML's record of each repetition (SM clock, throttle reasons), on the plugin's device `index`.
class NvmlRecord {
public:
    NvmlRecord(const KwbGpuBackendApi* api, int index, std::vector<std::string>& limitations)
    {
        std::string uuid;
        try {
            const auto devices = nlohmann::json::parse(api && api->devices_json ? api->devices_json() : "null");
            if (devices.is_array() && index < static_cast<int>(devices.size()))
                uuid = devices.at(static_cast<size_t>(index)).value("uuid", "");
        } catch (const std::exception&) {
        }
        const auto& nvml = nvml::Library::instance();
        if (auto device = uuid.empty() ? std::nullopt : nvml.device_by_uuid(uuid)) {
            monitor_ = std::make_unique<NvmlRepetitionMonitor>(*device);
            return;
        }
        const std::string why = !nvml.available() ? nvml.unavailable_reason()
            : uuid.empty()                        ? std::string("the plugin gave no device UUID")
                                                  : fmt::format("NVML has no device {}", uuid);
        limitations.push_back(fmt::format("no NVML ({}): clocks and throttle reasons not recorded", why));
    }
    RepetitionResult run(PreparedWorkload& w, const Arm& arm, int position, std::vector<double>& clocks)
    {
        if (monitor_)
            monitor_->begin();
        RepetitionResult r;
        Sample s;
        try {
            r = kwb::run(w, arm, position);
        } catch (...) {
            if (monitor_)
                monitor_->end(s);
            throw;
        }
        if (monitor_) {
            monitor_->end(s);
            if (s.clock_mhz)
                clocks.push_back(*s.clock_mhz);
            throttled_ += s.throttled ? 1 : 0;
            for (const auto& reason : s.throttle_reasons)
                reasons_.insert(reason);
        }
        return r;
    }
    void report(nlohmann::json& extra) const
    {
        if (!monitor_)
            return;
        extra["nvml_throttled_repetitions"] = throttled_;
        if (!reasons_.empty())
            extra["nvml_throttle_reasons"] = reasons_;
    }

private:
    std::unique_ptr<NvmlRepetitionMonitor> monitor_;
    int throttled_ = 0;
    std::set<std::string> reasons_;
};

ProfilePassResult profile_gpu(const Workload& w, const Arm& arm, const ProfilePassOptions& o)
{
    ProfilePassResult result;
    const auto* api = o.api;
    auto prepared = w.prepare_arm(arm, Backend::Cuda);
    const int launches = size_repetitions(*prepared, arm, 50.0);

    // The wall-clock view: event-timed repetitions with nothing attached.
    NvmlRecord nvml(api, o.device, result.limitations);
    std::vector<double> timed, timed_gbs, timed_clocks, profiled_clocks;
    for (int i = 0; i < 3; ++i) {
        const auto r = nvml.run(*prepared, arm, i, timed_clocks);
        if (const auto t = ms_per_launch(r))
            timed.push_back(*t);
        if (const auto it = r.metrics.find("gbs"); it != r.metrics.end() && std::isfinite(it->second))
            timed_gbs.push_back(it->second);
    }
    const std::optional<double> timed_ms = timed.empty() ? std::nullopt : std::optional<double>(median(timed));
    result.extra["timed_ms_per_launch_n"] = timed.size();
    if (!timed.empty()) {
        result.extra["timed_ms_per_launch_min"] = *std::min_element(timed.begin(), timed.end());
        result.extra["timed_ms_per_launch_max"] = *std::max_element(timed.begin(), timed.end());
    }

    // What can be attached: PM sampling needs the counters, Activity only CUPTI.
    std::string pm_why;
    if (!api)
        pm_why = o.api_reason.empty() ? "no GPU backend plugin" : o.api_reason;
    else if (!api->pm_open || !api->activity_begin)
        pm_why = "the GPU backend plugin has no CUPTI entries (ABI < 3)";
    else if (!o.cupti)
        pm_why = "CUPTI turned off (--no-cupti)";
    else if (const char* s = api->cupti_status(o.device); s && *s)
        pm_why = s;
    KwbPmSampler* pm = nullptr;
    std::vector<std::string> lanes;
    if (pm_why.empty()) {
        nlohmann::json names = nlohmann::json::array();
        for (const auto& m : kCuptiCollected)
            names.push_back(std::string(m));
        for (const auto& m : kCuptiLanes)
            lanes.emplace_back(m.lane);
        const char* error = nullptr;
        pm = api->pm_open(
            o.device, names.dump().c_str(), static_cast<unsigned long long>(o.pm_interval_s * 1e9), &error);
        if (!pm)
            pm_why = error ? error : "CUPTI PM sampling could not be configured";
    }
    if (!pm_why.empty())
        result.limitations.push_back(fmt::format("no per-kernel counters (DRAM %, occupancy, tensor %): {}", pm_why));

    bool activity = api && api->activity_begin && o.cupti;
    if (activity) {
        const char* error = nullptr;
        if (api->activity_begin(&error) != 0) {
            activity = false;
            result.limitations.push_back(
                fmt::format("no kernel records (CUPTI Activity): {}", error ? error : "cuptiActivityEnable failed"));
        }
    } else if (api && o.cupti && !api->activity_begin)
        result.limitations.push_back("no kernel records: the GPU backend plugin has no CUPTI Activity (ABI < 3)");
    else if (!o.cupti)
        result.limitations.push_back("no kernel records: CUPTI turned off (--no-cupti)");

    std::unique_ptr<PmCollector> collector;
    if (pm) {
        collector = std::make_unique<PmCollector>(api, pm, lanes);
        if (auto why = collector->start(); !why.empty()) {
            result.limitations.push_back(fmt::format("no per-kernel counters: {}", why));
            std::string ignored;
            collector->finish(ignored);
            collector.reset();
        }
    }
    const std::uint64_t t0 = api && api->gpu_timestamp_ns ? api->gpu_timestamp_ns() : 0;
    const auto host0 = Clock::now();
    int reps = 0, workload_launches = 0;
    try {
        while (reps < 3 || since_ms(host0) < o.profile_ms) {
            const auto r = nvml.run(*prepared, arm, 3 + reps, profiled_clocks);
            workload_launches += r.launches.value_or(launches);
            ++reps;
        }
    } catch (...) {
        // The workload failed under the profiler: detach CUPTI before the error goes up.
        collector.reset();
        if (pm)
            api->pm_close(pm);
        if (activity)
            api->activity_end();
        throw;
    }
    const std::uint64_t t1 = api && api->gpu_timestamp_ns ? api->gpu_timestamp_ns() : 0;
    const double host_ms = since_ms(host0);
    std::vector<PmWindow> samples;
    if (collector) {
        std::string why;
        samples = collector->finish(why);
        if (!why.empty())
            result.limitations.push_back(fmt::format("PM sampling stopped early: {}", why));
        for (const auto& [lane, n] : collector->dropped())
            result.limitations.push_back(fmt::format(
                "{}: {} PM reading{} outside [0, 100] dropped (the range rule)", lane, n, n == 1 ? "" : "s"));
    }
    if (pm)
        api->pm_close(pm);
    std::vector<KernelRecord> kernels;
    if (activity) {
        std::string why;
        kernels = parse_activity(api->activity_end(), why);
        if (!why.empty())
            result.limitations.push_back(fmt::format("no kernel records (CUPTI Activity): {}", why));
    }
    const double wall_ms = t1 > t0 ? static_cast<double>(t1 - t0) * 1e-6 : host_ms;
    result.evidence = attribute_kernels(kernels, samples, kernels.empty() ? 0 : wall_ms);
    result.input = binding_input(result.evidence, kernels.empty() ? 0 : workload_launches, timed_ms);
    if (!timed_gbs.empty())
        result.input.timed_gbs = median(timed_gbs);
    result.input.bandwidth_ceiling_gbs = o.bandwidth_ceiling_gbs;
    result.input.bandwidth_ceiling_name = o.bandwidth_ceiling_name;
    config_occupancy(api, w, arm, o.device, result.input);
    result.source = !samples.empty() ? "cupti" : !kernels.empty() ? "activity" : "events";
    result.extra["profiled_repetitions"] = reps;
    // NVML's SM clock of the timed and of the profiled repetitions: a profiler that moves the
    // clock explains a disagreement between the two views.
    if (!timed_clocks.empty())
        result.extra["nvml_sm_clock_mhz_timed"] = median(timed_clocks);
    if (!profiled_clocks.empty())
        result.extra["nvml_sm_clock_mhz_profiled"] = median(profiled_clocks);
    nvml.report(result.extra);
    result.extra["workload_launches"] = workload_launches;
    result.extra["wall_ms"] = wall_ms;
    if (!result.evidence.kernels.empty() && result.evidence.kernels.front().samples == 0 && !samples.empty())
        result.limitations.push_back(fmt::format("{}: no 1 ms PM sample fell inside its launches (kernels too short "
                                                 "or too sparse); its counters are not measured",
            result.evidence.kernels.front().name));
    result.call = classify_binding(result.input, o.thresholds);
    return result;
}

double cpu_seconds()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
        + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

ProfilePassResult profile_cpu(const Workload& w, const Arm& arm, const ProfilePassOptions& o)
{
    ProfilePassResult result;
    result.source = "procfs";
    auto prepared = w.prepare_arm(arm, Backend::Cpu);
    size_repetitions(*prepared, arm, 50.0);
    std::vector<double> per_launch;
    const double cpu0 = cpu_seconds();
    const auto host0 = Clock::now();
    int reps = 0;
    while (reps < 3 || since_ms(host0) < o.profile_ms)
        if (const auto t = ms_per_launch(run(*prepared, arm, reps++)))
            per_launch.push_back(*t);
    const double wall_ms = since_ms(host0);
    const double cpu_pct = 100.0 * (cpu_seconds() - cpu0) * 1e3 / wall_ms;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    result.extra["repetitions"] = reps;
    result.extra["wall_ms"] = wall_ms;
    result.extra["process_cpu_pct"] = cpu_pct; // 100 = one core busy
    result.extra["cores"] = cores;
    if (!per_launch.empty())
        result.extra["ms_per_iteration"] = median(per_launch);
    double load1 = 0;
    if (std::ifstream in("/proc/loadavg"); in >> load1)
        result.extra["loadavg_1min"] = load1;
    result.limitations.push_back("CPU backend: timing and procfs only, no hardware counters, so no DRAM %, "
                                 "occupancy or pipe readings; launch-overhead does not apply (no kernel launches)");
    result.call.evidence.push_back(fmt::format(
        "{} repetitions in {:.0f} ms; the process kept {:.0f}% of a core busy ({} cores); load average {:.2f}", reps,
        wall_ms, cpu_pct, cores, load1));
    if (load1 > cores)
        result.call.warnings.push_back(
            fmt::format("the machine's load average {:.2f} exceeds its {} cores: other processes compete for the CPU",
                load1, cores));
    return result;
}

} // namespace

ProfilePassResult profile_arm(
    const Workload& workload, const Arm& arm, Backend backend, const ProfilePassOptions& options)
{
    return backend == Backend::Cuda ? profile_gpu(workload, arm, options) : profile_cpu(workload, arm, options);
}

void store_binding(BindingEvidence& b, const ProfilePassResult& r, const std::string& experiment,
    const std::string& arm, const BindingThresholds& thresholds, const std::string& measured_at)
{
    b.constraint = r.call.constraint;
    b.axis = r.call.axis;
    b.evidence = r.call.evidence;
    b.warnings = r.call.warnings;
    b.limitations = r.limitations;
    b.thresholds = binding_thresholds_json(thresholds);
    b.kernels = kernels_json(r.evidence);
    b.metrics = binding_metrics_json(r.input);
    for (const auto& [k, v] : r.extra.items())
        b.metrics[k] = v;
    b.experiment = experiment;
    b.arm = arm;
    b.source = r.source;
    b.measured_at = measured_at;
}

} // namespace kwb
