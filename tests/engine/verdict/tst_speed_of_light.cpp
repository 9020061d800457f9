// SPDX-License-Identifier: GPL-3.0-or-later
// The speed-of-light guard (verdict/speed_of_light.h): an arm faster than its declared bytes and
// FLOPs allow at the roofs (x 1.10) is invalid and its A/B gets no LICENSE; the honest H200
// figures the project measured are not refused.
//
// The H200 numbers: datasheet HBM 4.8 TB/s, dense bf16 989.4 TFLOP/s, L2 60 MiB; `kwb calibrate`
// read a 4.26 TB/s copy and a 691 TFLOP/s cuBLASLt GEMM. Paged decode attention at batch 64 was
// timed at 4.4-4.5 TB/s (above the copy ceiling, by 3.3-5.6%: decode only reads) and cuBLASLt at
// 762 TFLOP/s (above the calibration's GEMM by 10.3%). Both stay under their roofs x 1.10:
// 4.5 < 4.26 x 1.10 = 4.686 TB/s, 762 < 989.4 x 1.10 = 1088 TFLOP/s. The calibration's GEMM
// is no roof: 762 > 691 x 1.10 = 760.1 would refuse an honest cuBLASLt.
#include "../../any_contains.h"
#include "verdict/speed_of_light.h"
#include "verdict/verdict.h"

#include <QTest>

using namespace kwb;
using kwbtest::any_contains;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

SpeedOfLightRoofs h200(std::optional<Roof> dram = Roof {4260, "copy ceiling"})
{
    SpeedOfLightRoofs r;
    r.device = "NVIDIA H200";
    r.dram_gbs = dram;
    r.compute_tflops = Roof {989.4, "bf16 datasheet peak (dense)"};
    r.cache_bytes = 60 * kMiB;
    return r;
}

// n repetitions of one per-launch time with bytes and FLOPs per launch (0: not declared).
SpeedOfLightArm arm(const char* name, double ms, double bytes, double flops = 0, int n = 5)
{
    SpeedOfLightArm a {name, {}};
    for (int i = 0; i < n; ++i) {
        SpeedOfLightRep r;
        r.time_ms = ms;
        if (bytes > 0)
            r.gbs = bytes / (ms * 1e6);
        if (flops > 0)
            r.tflops = flops / (ms * 1e9);
        a.reps.push_back(r);
    }
    return a;
}

SpeedOfLightInput input(SpeedOfLightRoofs roofs, SpeedOfLightArm b, SpeedOfLightArm t)
{
    return {std::move(roofs), {std::move(b), std::move(t)}, kSpeedOfLightMarginPct};
}

// Decode attention, batch 64: K and V bytes read per launch so that 0.511 ms is `tbs` TB/s.
SpeedOfLightArm decode(const char* name, double tbs)
{
    const double ms = 0.511;
    return arm(name, ms, tbs * 1e12 * ms * 1e-3, 4.0e9);
}

FinalVerdict licensed_then(const SpeedOfLightInput& sol)
{
    const Profile p = make_profile("generic", Direction::Lower);
    const SampleVerdict v = judge_samples({10, 10.1, 9.9, 10.05, 9.95}, {8.6, 8.55, 8.58, 8.52, 8.61}, p, false);
    StudyRulesInput in;
    in.tradeoffs = {{"loc-complexity", true, "a second code path"}};
    FinalVerdict f = apply_study_rules(v, in, p);
    apply_speed_of_light(f, judge_speed_of_light(sol));
    return f;
}

} // namespace

class TestSpeedOfLight : public QObject {
    Q_OBJECT

private slots:
    void decodeAboveTheCopyCeilingIsNotRefused()
    {
        for (double tbs : {4.4, 4.5}) {
            const auto f = judge_speed_of_light(input(h200(), decode("baseline", 4.1), decode("treatment", tbs)));
            QVERIFY2(f.invalid_arms.empty(), f.reasons.front().c_str());
            QCOMPARE(f.reasons.size(), std::size_t(1));
            QVERIFY2(f.reasons[0].rfind("speed-of-light guard holds (roofs of NVIDIA H200, margin 10%)", 0) == 0,
                f.reasons[0].c_str());
            QVERIFY2(f.reasons[0].find("within the 4.26 TB/s copy ceiling x 1.10") != std::string::npos,
                f.reasons[0].c_str());
        }
        // A read-only ceiling, when calibrate records one, is the roof it slots into.
        const auto f = judge_speed_of_light(
            input(h200(Roof {4550, "read-only ceiling"}), decode("baseline", 4.1), decode("treatment", 4.5)));
        QVERIFY(f.invalid_arms.empty());
        QVERIFY2(f.reasons[0].find("4.55 TB/s read-only ceiling x 1.10") != std::string::npos, f.reasons[0].c_str());
        // The datasheet's HBM peak stands in when nothing was measured.
        QVERIFY(judge_speed_of_light(
            input(h200(Roof {4800, "datasheet HBM peak"}), decode("baseline", 4.1), decode("treatment", 4.5)))
                    .invalid_arms.empty());
    }

    void cublasltAboveTheCalibratedGemmIsNotRefused()
    {
        // 8192^3: 1.1 TFLOP per GEMM; 762 TFLOP/s is 1.443 ms. Bytes: bf16 A, B and C once.
        const double flops = 2.0 * 8192 * 8192 * 8192;
        const double bytes = 3 * 2.0 * 8192 * 8192;
        const auto b = arm("baseline", flops / 700e12 * 1e3, bytes, flops);
        const auto t = arm("treatment", flops / 762e12 * 1e3, bytes, flops);
        const auto f = judge_speed_of_light(input(h200(), b, t));
        QVERIFY2(f.invalid_arms.empty(), f.reasons.front().c_str());
        QVERIFY2(f.reasons[0].find("treatment 762 TFLOP/s within the 989.4 TFLOP/s bf16 datasheet peak (dense) x 1.10")
                != std::string::npos,
            f.reasons[0].c_str());
        // Why the calibration's GEMM is no roof: it would refuse this honest arm.
        auto measured = h200();
        measured.compute_tflops = Roof {691, "cuBLASLt ceiling"};
        QCOMPARE(judge_speed_of_light(input(measured, b, t)).invalid_arms, std::vector<std::string> {"treatment"});
    }

    void theExampleReadsAsStated()
    {
        auto roofs = h200();
        roofs.cache_bytes = 0; // the plain form: every byte from DRAM
        const auto f = judge_speed_of_light(input(roofs, arm("baseline", 0.52, 2.1e9), arm("treatment", 0.12, 2.1e9)));
        QCOMPARE(f.invalid_arms, std::vector<std::string> {"treatment"});
        QCOMPARE(f.reasons.size(), std::size_t(1));
        QCOMPARE(f.reasons[0],
            std::string("speed-of-light guard: treatment: 0.12 ms for 2.1 GB is 17.5 TB/s, above the 4.26 TB/s copy "
                        "ceiling x 1.10: invalid, it cannot have done its work (roofs of NVIDIA H200, margin 10%)"));
    }

    void aSkippingTreatmentLosesItsLicense()
    {
        // bandwidth copy of 1 GiB arrays skipping 90%: 2 GiB declared, a tenth of 0.5 ms taken.
        const double bytes = 2.0 * 1024 * kMiB;
        const auto sol = input(h200(), arm("baseline", 0.5, bytes), arm("treatment", 0.05, bytes));
        const FinalVerdict f = licensed_then(sol);
        QCOMPARE(f.sample_word, VerdictWord::License);
        QCOMPARE(f.word, VerdictWord::Inconclusive);
        QCOMPARE(f.flags, std::vector<std::string> {"speed of light"});
        QCOMPARE(f.reasons.front(),
            std::string("speed-of-light guard: treatment: 0.05 ms for 2.15 GB is 42.9 TB/s (40.4 TB/s for the 2.02 "
                        "GB beyond twice the 60 MiB L2), above the 4.26 TB/s copy ceiling x 1.10: invalid, it cannot "
                        "have done its work (roofs of NVIDIA H200, margin 10%)"));
        QVERIFY(!any_contains(f.reasons, "speed-of-light guard: baseline"));
    }

    void theMarginIsTheEdge()
    {
        auto roofs = h200();
        roofs.cache_bytes = 0;
        const double ms = 1.0;
        const auto at = [&](double gbs) {
            return judge_speed_of_light(input(roofs, arm("baseline", ms, 1e9), arm("treatment", ms, gbs * 1e6 * ms)));
        };
        QVERIFY(at(4260 * 1.10 * 0.999).invalid_arms.empty());
        QCOMPARE(at(4260 * 1.10 * 1.001).invalid_arms, std::vector<std::string> {"treatment"});
    }

    void cacheResidentBytesNeedNoDram()
    {
        // A hot 16 MiB copy: 32 MiB a launch at 10 TB/s fits twice the 60 MiB L2, so no DRAM bound.
        const double bytes = 32 * kMiB;
        const auto hot
            = input(h200(), arm("baseline", bytes / 8e12 * 1e3, bytes), arm("treatment", bytes / 10e12 * 1e3, bytes));
        QVERIFY(judge_speed_of_light(hot).invalid_arms.empty());
        // Every byte still crosses the L2: a measured L2 roof bounds it.
        auto with_l2 = hot;
        with_l2.roofs.l2_gbs = Roof {8000, "L2 read ceiling"};
        const auto f = judge_speed_of_light(with_l2);
        QCOMPARE(f.invalid_arms, std::vector<std::string> {"treatment"});
        QVERIFY2(f.reasons[0].find("is 10 TB/s, above the 8 TB/s L2 read ceiling x 1.10") != std::string::npos,
            f.reasons[0].c_str());
    }

    void aBaselineCanBeInvalidToo()
    {
        const double bytes = 4e9;
        const auto f = judge_speed_of_light(input(h200(), arm("baseline", 0.1, bytes), arm("treatment", 0.09, bytes)));
        QCOMPARE(f.invalid_arms, (std::vector<std::string> {"baseline", "treatment"}));
        QCOMPARE(f.reasons.size(), std::size_t(2));
    }

    void saysWhenItCannotCheck()
    {
        SpeedOfLightInput none = input(h200(), arm("baseline", 1, 0), arm("treatment", 1, 0));
        auto f = judge_speed_of_light(none);
        QVERIFY(f.invalid_arms.empty());
        QCOMPARE(f.reasons,
            std::vector<std::string> {"speed-of-light guard: not checked: the arms declare no bytes or "
                                      "FLOPs (no GB/s or TFLOP/s metric)"});
        SpeedOfLightRoofs bare;
        bare.device = "AMD EPYC";
        f = judge_speed_of_light(input(bare, arm("baseline", 1, 1e9), arm("treatment", 1, 1e9)));
        QVERIFY(f.invalid_arms.empty());
        QVERIFY2(f.reasons[0].rfind("speed-of-light guard: not checked: no bandwidth roof for AMD EPYC", 0) == 0,
            f.reasons[0].c_str());
        // A line that it could not check changes nothing else.
        const Profile p = make_profile("generic", Direction::Lower);
        const SampleVerdict v = judge_samples({10, 10.1, 9.9}, {8.6, 8.55, 8.58}, p, false);
        FinalVerdict final = apply_study_rules(v, StudyRulesInput {}, p);
        const auto before = final.reasons.size();
        const VerdictWord word = final.word;
        apply_speed_of_light(final, f);
        QCOMPARE(final.reasons.size(), before + 1);
        QCOMPARE(final.word, word);
        QVERIFY(final.flags.empty());
    }
};

QTEST_GUILESS_MAIN(TestSpeedOfLight)
#include "tst_speed_of_light.moc"
