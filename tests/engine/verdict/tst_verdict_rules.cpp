// SPDX-License-Identifier: GPL-3.0-or-later
// The decision table of spec/verdict.md: every rule of every profile, each both matching and
// falling through at its boundary (`<` vs `<=`), on evidence with exact numbers.
#include "stats/effect.h"
#include "verdict/profile.h"
#include "verdict/sample_rules.h"
#include "verdict/wording.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace kwb;

namespace {

constexpr double kNull = std::numeric_limits<double>::quiet_NaN();

struct Row {
    const char* name;
    const char* profile; // generic, strict, speedup
    const char* overrides; // JSON object
    int nb, nt;
    double sigma; // kNull: undefined
    int bim_b, bim_t; // -1 not assessed, 0 no, 1 yes
    double delta; // delta% (speedup rows: kNull, derived from speedup)
    double speedup; // kNull: derived from delta
    double ci_lo; // lower end of the 95% CI (upper = ci_lo + 20)
    double p_welch; // kNull: undefined
    const char* word;
    int rule;
};

const Row kRows[] = {
    // generic: min_n 3, license 10, kill 5, max sigma 5, unstable 10, noise k 2
    {"g1 baseline short", "generic", "{}", 2, 5, 1, 0, 0, 20, kNull, 15, 0.001, "INCONCLUSIVE", 1},
    {"g1 treatment short", "generic", "{}", 5, 2, 1, 0, 0, 20, kNull, 15, 0.001, "INCONCLUSIVE", 1},
    {"g1 exactly min_n passes", "generic", "{}", 3, 3, 1, 0, 0, 20, kNull, 15, 0.001, "LICENSE", 5},
    {"g2 unstable", "generic", "{}", 5, 5, 10.5, 0, 0, 50, kNull, 15, 0.001, "INCONCLUSIVE", 2},
    {"g2 sigma at unstable passes", "generic", "{}", 5, 5, 10, 0, 0, 50, kNull, 15, 0.001, "INCONCLUSIVE", 7},
    {"g2 sigma undefined", "generic", "{\"min_n\": 1}", 1, 1, kNull, -1, -1, 20, kNull, 15, kNull, "INCONCLUSIVE", 2},
    {"g2 before g3", "generic", "{}", 8, 8, 11, 1, 0, 20, kNull, 15, 0.001, "INCONCLUSIVE", 2},
    {"g3 baseline bimodal", "generic", "{}", 8, 8, 1, 1, 0, 20, kNull, 15, 0.001, "INCONCLUSIVE", 3},
    {"g3 treatment bimodal", "generic", "{}", 8, 8, 1, 0, 1, 20, kNull, 15, 0.001, "INCONCLUSIVE", 3},
    {"g3 not assessed is not bimodal", "generic", "{}", 5, 5, 1, -1, -1, 20, kNull, 15, 0.001, "LICENSE", 5},
    {"g3 before g4", "generic", "{}", 8, 8, 1, 1, 1, 0, kNull, -5, 0.9, "INCONCLUSIVE", 3},
    {"g4 on the band edge", "generic", "{}", 5, 5, 2, 0, 0, 4, kNull, -1, 0.3, "NOISE", 4},
    {"g4 negative edge", "generic", "{}", 5, 5, 2, 0, 0, -4, kNull, -9, 0.3, "NOISE", 4},
    {"g4 just outside", "generic", "{}", 5, 5, 2, 0, 0, 4.0001, kNull, -1, 0.3, "KILL", 6},
    {"g4 zero sigma zero delta", "generic", "{}", 5, 5, 0, 0, 0, 0, kNull, 0, kNull, "NOISE", 4},
    {"g4 zero sigma small delta", "generic", "{}", 5, 5, 0, 0, 0, 0.001, kNull, 0.001, kNull, "KILL", 6},
    {"g5 license at threshold", "generic", "{}", 5, 5, 4.99, 0, 0, 10, kNull, 1, 0.2, "LICENSE", 5},
    {"g5 sigma at max fails", "generic", "{}", 5, 5, 5, 0, 0, 20, kNull, 15, 0.001, "INCONCLUSIVE", 7},
    {"g5 sigma below max", "generic", "{}", 5, 5, 4.999, 0, 0, 20, kNull, 15, 0.001, "LICENSE", 5},
    {"g5 below license grey", "generic", "{}", 5, 5, 1, 0, 0, 9.99, kNull, 8, 0.001, "INCONCLUSIVE", 7},
    {"g6 below kill", "generic", "{}", 5, 5, 1, 0, 0, 4.99, kNull, 3, 0.001, "KILL", 6},
    {"g6 at kill is grey", "generic", "{}", 5, 5, 1, 0, 0, 5, kNull, 3, 0.001, "INCONCLUSIVE", 7},
    {"g6 regression", "generic", "{}", 5, 5, 1, 0, 0, -20, kNull, -25, 0.001, "KILL", 6},
    {"g custom license 20", "generic", "{\"license_pct\": 20}", 5, 5, 1, 0, 0, 15, kNull, 12, 0.001, "INCONCLUSIVE", 7},
    {"g custom noise_k 0", "generic", "{\"noise_k\": 0}", 5, 5, 2, 0, 0, 3, kNull, 1, 0.01, "KILL", 6},
    // strict: generic plus the CI and Welch gate on rule 5
    {"s1 short", "strict", "{}", 2, 3, 1, 0, 0, 20, kNull, 15, 0.001, "INCONCLUSIVE", 1},
    {"s2 unstable", "strict", "{}", 5, 5, 12, 0, 0, 20, kNull, 15, 0.001, "INCONCLUSIVE", 2},
    {"s3 bimodal", "strict", "{}", 8, 8, 1, 0, 1, 20, kNull, 15, 0.001, "INCONCLUSIVE", 3},
    {"s4 noise", "strict", "{}", 5, 5, 3, 0, 0, 5, kNull, 1, 0.2, "NOISE", 4},
    {"s5 gate holds", "strict", "{}", 5, 5, 1, 0, 0, 20, kNull, 6, 0.01, "LICENSE", 5},
    {"s5 CI at kill holds", "strict", "{}", 5, 5, 1, 0, 0, 20, kNull, 5, 0.01, "LICENSE", 5},
    {"s5 CI below kill", "strict", "{}", 5, 5, 1, 0, 0, 20, kNull, 4.99, 0.01, "INCONCLUSIVE", 5},
    {"s5 p at 0.05", "strict", "{}", 5, 5, 1, 0, 0, 20, kNull, 6, 0.05, "INCONCLUSIVE", 5},
    {"s5 p undefined", "strict", "{}", 5, 5, 0, 0, 0, 20, kNull, 20, kNull, "INCONCLUSIVE", 5},
    {"s6 kill", "strict", "{}", 5, 5, 1, 0, 0, 3, kNull, 1, 0.01, "KILL", 6},
    {"s7 grey", "strict", "{}", 5, 5, 1, 0, 0, 7, kNull, 5, 0.01, "INCONCLUSIVE", 7},
    {"s custom keeps the gate", "strict", "{\"license_pct\": 8}", 5, 5, 1, 0, 0, 9, kNull, 4, 0.01, "INCONCLUSIVE", 5},
    {"s custom gate holds", "strict", "{\"license_pct\": 8}", 5, 5, 1, 0, 0, 9, kNull, 6, 0.01, "LICENSE", 5},
    // speedup: license >= 5x, kill < 2x
    {"x1 short", "speedup", "{}", 5, 1, 1, 0, 0, kNull, 6, 80, 0.001, "INCONCLUSIVE", 1},
    {"x2 unstable", "speedup", "{}", 5, 5, 10.1, 0, 0, kNull, 6, 80, 0.001, "INCONCLUSIVE", 2},
    {"x3 bimodal", "speedup", "{}", 9, 9, 1, 1, 0, kNull, 6, 80, 0.001, "INCONCLUSIVE", 3},
    {"x4 noise", "speedup", "{}", 5, 5, 1, 0, 0, kNull, 1.01, 0, 0.5, "NOISE", 4},
    {"x5 license at threshold", "speedup", "{}", 5, 5, 1, 0, 0, kNull, 5, 75, 0.001, "LICENSE", 5},
    {"x5 just below license", "speedup", "{}", 5, 5, 1, 0, 0, kNull, 4.99, 75, 0.001, "INCONCLUSIVE", 7},
    {"x5 sigma at max", "speedup", "{}", 5, 5, 5, 0, 0, kNull, 6, 80, 0.001, "INCONCLUSIVE", 7},
    {"x6 below kill", "speedup", "{}", 5, 5, 1, 0, 0, kNull, 1.99, 45, 0.001, "KILL", 6},
    {"x6 at kill is grey", "speedup", "{}", 5, 5, 1, 0, 0, kNull, 2, 45, 0.001, "INCONCLUSIVE", 7},
    {"x6 slowdown", "speedup", "{}", 5, 5, 1, 0, 0, kNull, 0.5, -110, 0.001, "KILL", 6},
    {"x custom license 3x", "speedup", "{\"license_speedup\": 3}", 5, 5, 1, 0, 0, kNull, 3.5, 65, 0.001, "LICENSE", 5},
    {"x custom kill 4x", "speedup", "{\"kill_speedup\": 4}", 5, 5, 1, 0, 0, kNull, 3.5, 65, 0.001, "KILL", 6},
};

std::optional<bool> flag(int v)
{
    return v < 0 ? std::nullopt : std::optional<bool>(v == 1);
}

} // namespace

class TestVerdictRules : public QObject {
    Q_OBJECT

private slots:
    void decision_table_data()
    {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < std::size(kRows); ++i)
            QTest::newRow(kRows[i].name) << static_cast<int>(i);
    }

    void decision_table()
    {
        QFETCH(int, index);
        const Row& r = kRows[index];
        const Profile p
            = apply_overrides(make_profile(r.profile, Direction::Lower), nlohmann::json::parse(r.overrides));
        SampleEvidence e;
        e.baseline.n = static_cast<std::size_t>(r.nb);
        e.treatment.n = static_cast<std::size_t>(r.nt);
        if (!std::isnan(r.sigma))
            e.sigma_pct = r.sigma;
        e.bimodal_baseline.bimodal = flag(r.bim_b);
        e.bimodal_treatment.bimodal = flag(r.bim_t);
        if (e.bimodal_baseline.bimodal.value_or(false) || e.bimodal_treatment.bimodal.value_or(false)) {
            e.bimodal_baseline.modes = {{0.67, 10}, {0.33, 12}};
            e.bimodal_treatment.modes = e.bimodal_baseline.modes;
            e.bimodal_baseline.gap = e.bimodal_treatment.gap = 1.5;
            e.bimodal_baseline.pooled_sd = e.bimodal_treatment.pooled_sd = 0.1;
        }
        e.speedup = std::isnan(r.speedup) ? 100.0 / (100.0 - r.delta) : r.speedup;
        e.delta_pct = std::isnan(r.delta) ? stats::speedup_to_delta_pct(r.speedup, Direction::Lower) : r.delta;
        e.ci95_delta_pct = stats::Interval {r.ci_lo, r.ci_lo + 20};
        if (!std::isnan(r.p_welch))
            e.p_welch = r.p_welch;

        const SampleDecision d = decide_sample(e, p);
        QCOMPARE(QString::fromStdString(std::string(to_string(d.word))), QString::fromLatin1(r.word));
        QCOMPARE(d.rule, r.rule);
        QVERIFY(!d.reasons.empty());
        // Reasons carry the numbers used.
        const std::string& reason = d.reasons.front();
        if (d.rule == 1)
            QVERIFY2(reason.find(std::to_string(p.min_n)) != std::string::npos, reason.c_str());
        if (d.rule == 2 && e.sigma_pct)
            QVERIFY2(reason.find(wording::num(*e.sigma_pct)) != std::string::npos, reason.c_str());
        if (d.rule >= 4 && (d.rule == 4 || rule_family(p) != "speedup"))
            QVERIFY2(reason.find(wording::num(e.delta_pct)) != std::string::npos, reason.c_str());
        if (d.rule >= 5 && rule_family(p) == "speedup")
            QVERIFY2(reason.find(wording::num(e.speedup) + "x") != std::string::npos, reason.c_str());
        if (d.rule == 3)
            QVERIFY2(reason.find("67% of runs at 10") != std::string::npos, reason.c_str());
    }

    // Every rule of every profile is hit by the table, each both matching and falling through.
    void table_covers_every_rule()
    {
        for (const char* profile : {"generic", "strict", "speedup"}) {
            for (int rule = 1; rule <= 7; ++rule) {
                if (std::string(profile) == "strict" && rule == 5) {
                    bool licensed = false, gated = false;
                    for (const Row& r : kRows)
                        if (std::string(r.profile) == profile && r.rule == 5) {
                            licensed = licensed || std::string(r.word) == "LICENSE";
                            gated = gated || std::string(r.word) == "INCONCLUSIVE";
                        }
                    QVERIFY(licensed && gated);
                }
                bool hit = false;
                for (const Row& r : kRows)
                    hit = hit || (std::string(r.profile) == profile && r.rule == rule);
                QVERIFY2(hit, (std::string(profile) + " rule " + std::to_string(rule)).c_str());
                bool passed = false; // a row that got past this rule
                for (const Row& r : kRows)
                    passed = passed || (std::string(r.profile) == profile && r.rule > rule);
                QVERIFY2(rule == 7 || passed, (std::string(profile) + " past rule " + std::to_string(rule)).c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestVerdictRules)
#include "tst_verdict_rules.moc"
