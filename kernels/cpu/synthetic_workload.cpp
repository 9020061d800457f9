// SPDX-License-Identifier: GPL-3.0-or-later
// `synthetic`: no compute at all. Each repetition returns a value drawn from a configured
// distribution, so the runner's statistical behaviour (stopping rules, verdict error rates, A/A
// false alarms) can be measured over tens of thousands of studies with a known truth: a whole
// 30 + 30 study takes milliseconds. Tests outside the project use these parameter names.
//
// The value of one repetition (lower is better):
//   mean * (1 - delta_pct/100)                   the arm's true level (arms differ only in delta_pct)
//        * (1 + drift_pct/100 * position)         linear drift over the run order (judged runs)
//        * (1 + bimodal_gap_pct/100)              with probability bimodal_share (a slow mode)
//        * noise                                  normal: 1 + cv*z; lognormal: mean 1, cv as given
//        * kOutlierFactor                         with probability outlier_rate
// Draws come from a stream seeded by (seed, arm name, position in the order), so two arms that
// share a seed do not share their noise and a resumed study draws what the first session would have.
#include "cpu/cpu_workloads.h"
#include "cpu/workload_util.h"
#include "workloads/descriptions/builtin_descriptions.h"

#include <cmath>
#include <fmt/format.h>
#include <random>

namespace kwb::cpu {
namespace {

constexpr const char* kName = "synthetic";
// An outlier repetition is half as slow again: a preempted or descheduled run.
constexpr double kOutlierFactor = 1.5;

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// FNV-1a: a hash of the arm's name that is the same on every platform (std::hash is not).
std::uint64_t fnv1a(std::string_view s)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s)
        h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

struct SyntheticParams {
    bool lognormal = false;
    double mean = 1;
    double cv_pct = 1;
    double delta_pct = 0;
    double drift_pct = 0;
    double bimodal_share = 0;
    double bimodal_gap_pct = 0;
    double outlier_rate = 0;
    std::uint64_t seed = 1;
};

double number_param(const nlohmann::json& params, std::string_view name, double lo, double hi)
{
    const auto it = params.find(std::string(name));
    if (it == params.end() || !it->is_number())
        throw WorkloadError(fmt::format("{}: parameter '{}' must be a number", kName, name));
    const double x = it->get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
        throw WorkloadError(fmt::format("{}: parameter '{}' must be in [{}, {}], got {}", kName, name, lo, hi, x));
    return x;
}

class PreparedSynthetic final : public PreparedWorkload {
public:
    explicit PreparedSynthetic(SyntheticParams p)
        : p_(p)
    {
        const double cv = p_.cv_pct / 100;
        log_sigma_ = std::sqrt(std::log1p(cv * cv));
    }

    void set_run(std::string_view arm, int position) override
    {
        arm_hash_ = fnv1a(arm);
        position_ = position;
    }

    RepetitionResult run_once() override
    {
        const std::uint64_t key = splitmix64(splitmix64(p_.seed) ^ arm_hash_)
            ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(position_));
        std::mt19937_64 rng(splitmix64(key));
        std::uniform_real_distribution<double> u(0.0, 1.0);
        std::normal_distribution<double> z(0.0, 1.0);
        double v = p_.mean * (1 - p_.delta_pct / 100);
        v *= 1 + p_.drift_pct / 100 * std::max(position_, 0);
        if (u(rng) < p_.bimodal_share)
            v *= 1 + p_.bimodal_gap_pct / 100;
        const double noise
            = p_.lognormal ? std::exp(log_sigma_ * z(rng) - log_sigma_ * log_sigma_ / 2) : 1 + p_.cv_pct / 100 * z(rng);
        v *= noise;
        if (u(rng) < p_.outlier_rate)
            v *= kOutlierFactor;
        // Normal noise of a huge cv can cross zero; a time never does.
        v = std::max(v, 1e-9 * p_.mean);
        RepetitionResult r;
        r.metrics["value"] = v;
        r.iterations = {v};
        ++position_; // a caller that never calls set_run still gets distinct draws
        return r;
    }

    VerifyResult verify() override { return verify_result(0, 0, "synthetic: no computation to check"); }

private:
    SyntheticParams p_;
    double log_sigma_ = 0;
    std::uint64_t arm_hash_ = 0;
    int position_ = 0;
};

class SyntheticWorkload final : public DescribedWorkload {
public:
    SyntheticWorkload()
        : DescribedWorkload(synthetic_description())
    {
    }
    std::unique_ptr<PreparedWorkload> prepare(const nlohmann::json& params, Backend backend) const override
    {
        require_cpu(kName, backend);
        SyntheticParams p;
        const auto dist = params.value("dist", std::string("normal"));
        if (dist != "normal" && dist != "lognormal")
            throw WorkloadError(
                fmt::format("{}: parameter 'dist' must be normal or lognormal, got \"{}\"", kName, dist));
        p.lognormal = dist == "lognormal";
        p.mean = number_param(params, "mean", 1e-300, 1e300);
        if (!(p.mean > 0))
            throw WorkloadError(fmt::format("{}: parameter 'mean' must be > 0", kName));
        p.cv_pct = number_param(params, "cv_pct", 0, 1000);
        p.delta_pct = number_param(params, "delta_pct", -1000, 99.999);
        p.drift_pct = number_param(params, "drift_pct", -100, 100);
        p.bimodal_share = number_param(params, "bimodal_share", 0, 1);
        p.bimodal_gap_pct = number_param(params, "bimodal_gap_pct", 0, 10000);
        p.outlier_rate = number_param(params, "outlier_rate", 0, 1);
        p.seed = static_cast<std::uint64_t>(int_param(params, kName, "seed", 0, 9'000'000'000'000'000LL));
        return std::make_unique<PreparedSynthetic>(p);
    }
};

} // namespace

std::unique_ptr<Workload> make_synthetic_workload()
{
    return std::make_unique<SyntheticWorkload>();
}

} // namespace kwb::cpu
