// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A deterministic workload for the runner's tests: no real timing, so the tests check the
// runner's logic and never the machine's speed.
//   time_ms = 10 / speed * (1 + jitter * u(k)), k counting that arm's repetitions and u(k) a
//   fixed pseudo-random number in [-1, 1) (no period to alias with the run order);
//   guard_ms = 5 / guard_speed (a second metric the guards read).
// Every repetition advances a shared fake clock by `seconds` (the runner is given that clock),
// `prepare_seconds` advances it when an arm is prepared, and `fail_at` makes the fail_at-th
// repetition (from 0) of that arm throw a WorkloadError. `wrong` = 1 makes the arm's correctness
// check fail; `launchable` = 1 gives it a launch count (time_ms per launch, total_ms = launches x
// time_ms) for the calibration of repetitions; `buffer_set` > 0 is the buffer set its check reports
// (as the GPU backend's arms that share device buffers do).

#include "workloads/workload.h"

#include <cstdint>
#include <memory>

namespace kwb::test {

struct FakeClock {
    double now = 1000.0;
    double operator()() const { return now; }
};

class FakeWorkload final : public Workload {
public:
    explicit FakeWorkload(FakeClock* clock)
        : clock_(clock)
    {
    }

    std::string name() const override { return "fake"; }
    std::string description() const override { return "deterministic fake"; }
    std::vector<Backend> backends() const override { return {Backend::Cpu}; }
    std::vector<ParamSpec> params() const override
    {
        return {{"speed", 1.0, {}, ""}, {"jitter", 0.01, {}, ""}, {"guard_speed", 1.0, {}, ""}, {"fail_at", -1, {}, ""},
            {"seconds", 1.0, {}, ""}, {"prepare_seconds", 0.0, {}, ""}, {"wrong", 0, {}, ""}, {"launchable", 0, {}, ""},
            {"readings", 0, {}, ""}, {"buffer_set", 0, {}, ""}};
    }
    std::vector<MetricSpec> metrics() const override
    {
        return {{"time_ms", "ms", Direction::Lower, ""}, {"guard_ms", "ms", Direction::Lower, ""}};
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& p, Backend) const override
    {
        if (clock_)
            clock_->now += p.at("prepare_seconds").get<double>();
        auto prepared = std::make_unique<Prepared>(clock_, p.at("speed").get<double>(), p.at("jitter").get<double>(),
            p.at("guard_speed").get<double>(), p.at("fail_at").get<int>(), p.at("seconds").get<double>());
        prepared->wrong_ = p.at("wrong").get<int>() != 0;
        prepared->launchable_ = p.at("launchable").get<int>() != 0;
        prepared->readings_ = p.at("readings").get<int>() != 0;
        if (const int set = p.at("buffer_set").get<int>(); set > 0)
            prepared->buffer_set_ = static_cast<std::uint64_t>(set);
        return prepared;
    }

private:
    class Prepared final : public PreparedWorkload {
    public:
        Prepared(FakeClock* clock, double speed, double jitter, double guard_speed, int fail_at, double seconds)
            : clock_(clock)
            , speed_(speed)
            , jitter_(jitter)
            , guard_speed_(guard_speed)
            , fail_at_(fail_at)
            , seconds_(seconds)
        {
        }
        RepetitionResult run_once() override
        {
            if (k_ == fail_at_)
                throw WorkloadError("fake: device fell over");
            if (clock_)
                clock_->now += seconds_;
            RepetitionResult r;
            r.metrics["time_ms"] = 10.0 / speed_ * (1.0 + jitter_ * noise(k_));
            r.metrics["guard_ms"] = 5.0 / guard_speed_;
            if (readings_) // timed by the workload itself, as tiny_llm's TTFT and ITL
                r.readings = {{0.25, "ttft", 100.0 + k_, "ms"}, {0.5, "itl", 200.0 + k_, "ms"}};
            if (launchable_) {
                r.launches = launches_;
                r.total_ms = launches_ * r.metrics["time_ms"];
            }
            ++k_;
            return r;
        }
        VerifyResult verify() override
        {
            VerifyResult v
                = wrong_ ? VerifyResult {false, 0.5, 1e-3, "fake vs its reference"} : VerifyResult {true, 0, 0, ""};
            v.buffer_set = buffer_set_;
            return v;
        }
        bool set_launches(int launches) override
        {
            launches_ = launches;
            return launchable_;
        }
        bool wrong_ = false;
        bool launchable_ = false;
        bool readings_ = false;
        std::optional<std::uint64_t> buffer_set_;
        int launches_ = 1;

        static double noise(int k)
        {
            std::uint64_t x = 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(k + 1); // splitmix64
            x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
            x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
            x ^= x >> 31;
            return static_cast<double>(x >> 11) / 4503599627370496.0 - 1.0; // [0, 2) - 1
        }

    private:
        FakeClock* clock_;
        double speed_, jitter_, guard_speed_;
        int fail_at_;
        double seconds_;
        int k_ = 0;
    };

    FakeClock* clock_;
};

} // namespace kwb::test
