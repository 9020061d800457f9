// SPDX-License-Identifier: GPL-3.0-or-later
// The typed verdict and its JSON: written and read in one place (verdict/verdict_json.*), so a
// verdict read back from a study is the verdict that was judged, and writing it again gives the
// same JSON key for key (the study file and `kwb verdict --json` keep their shape).
#include "study/study_file.h"
#include "util/json_reader.h"
#include "verdict/verdict.h"
#include "verdict/verdict_json.h"

#include <QTest>
#include <fstream>

using namespace kwb;
using Values = std::vector<double>;

class TestVerdictJson : public QObject {
    Q_OBJECT

private slots:
    void sample_verdicts_round_trip_data()
    {
        QTest::addColumn<Values>("baseline");
        QTest::addColumn<Values>("treatment");
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("paired");
        QTest::newRow("license paired") << Values {10, 10.1, 9.9, 10.05, 9.95} << Values {8, 8.1, 7.9, 8.05, 7.95}
                                        << QStringLiteral("generic") << true;
        QTest::newRow("one run each") << Values {10} << Values {9} << QStringLiteral("generic") << false;
        QTest::newRow("bimodal") << Values {78.9, 79.1, 78.7, 79.0, 78.8, 79.2, 76.0, 76.1, 75.9}
                                 << Values {70, 70.5, 69.5, 70.2, 69.8, 70.1} << QStringLiteral("strict") << false;
        QTest::newRow("speedup") << Values {10, 10.2, 9.8} << Values {2, 2.02, 1.98} << QStringLiteral("speedup")
                                 << false;
    }
    void sample_verdicts_round_trip()
    {
        QFETCH(Values, baseline);
        QFETCH(Values, treatment);
        QFETCH(QString, profile);
        QFETCH(bool, paired);
        const auto v
            = judge_samples(baseline, treatment, make_profile(profile.toStdString(), Direction::Lower), paired);
        const auto j = to_json(v);
        const auto back = sample_verdict_from_json(j);
        QCOMPARE(back.word, v.word);
        QCOMPARE(back.delta_pct, v.delta_pct);
        QCOMPARE(back.baseline.n, v.baseline.n);
        QCOMPARE(back.paired.has_value(), v.paired.has_value());
        QCOMPARE(back.profile.name, v.profile.name);
        QCOMPARE(to_json(back).dump(), j.dump());
    }

    void final_verdict_round_trips_with_guards()
    {
        const Profile p = make_profile("generic", Direction::Lower);
        const auto sample = judge_samples({10, 10.1, 9.9, 10.05}, {8, 8.1, 7.9, 8.05}, p, false);
        StudyRulesInput in;
        in.guards = {{"tok_s", Direction::Higher, {100, 101, 99, 100.5}, {90, 90.5, 89.5, 90.2}, 0.0},
            {"rss", Direction::Lower, {}, {}, 0.0}};
        in.predicted_delta_pct = 50;
        SplitHalfCheck aa;
        aa.splits = 4;
        aa.false_alarms = 1;
        in.split_half = aa;
        const auto f = apply_study_rules(sample, in, p);
        QCOMPARE(f.word, VerdictWord::Kill);
        const auto j = to_json(f);
        QVERIFY(j.at("guards")[1].at("verdict").is_null());
        QVERIFY(!j.at("guards")[1].contains("reasons"));
        const auto back = final_verdict_from_json(j);
        QCOMPARE(back.guards.size(), std::size_t(2));
        QVERIFY(back.guards[0].regressed);
        QCOMPARE(to_json(back).dump(), j.dump());
    }

    void the_demo_study_keeps_its_verdict_json()
    {
        std::ifstream in(KWB_SOURCE_DIR "/resources/studies/demo.json");
        const auto raw = nlohmann::json::parse(in);
        const Study s = load_study(KWB_SOURCE_DIR "/resources/studies/demo.json");
        for (std::size_t i = 0; i < s.experiments.size(); ++i) {
            const auto& e = s.experiments[i];
            const auto& stored = raw.at("experiments")[i];
            if (e.verdict)
                QCOMPARE(to_json(*e.verdict).dump(), stored.at("verdict").dump());
            if (e.final_verdict)
                QCOMPARE(to_json(*e.final_verdict).dump(), stored.at("final_verdict").dump());
        }
    }

    void bad_values_name_the_field()
    {
        try {
            sample_verdict_from_json({{"verdict", "MAYBE"}}, "experiments[0].verdict");
            QFAIL("accepted an unknown verdict");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find("experiments[0].verdict.verdict") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(FormatError, sample_verdict_from_json({{"delta_pct", "big"}}));
        QVERIFY_THROWS_EXCEPTION(FormatError, sample_verdict_from_json({{"ci95_delta_pct", {1.0}}}));
    }
};

QTEST_GUILESS_MAIN(TestVerdictJson)
#include "tst_verdict_json.moc"
