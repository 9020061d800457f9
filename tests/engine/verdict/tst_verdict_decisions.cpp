// SPDX-License-Identifier: GPL-3.0-or-later
// judge_samples() against an independent Python implementation of the spec's rules on random
// cases of every profile (scripts/gen_verdict_fixtures.py writes decision_cases.json).
#include "verdict/profile.h"
#include "verdict/verdict.h"

#include <QTest>
#include <fstream>

using namespace kwb;

namespace {

const nlohmann::json& cases()
{
    static const nlohmann::json c = [] {
        std::ifstream in(KWB_TEST_DATA_DIR "/verdict/decision_cases.json");
        return nlohmann::json::parse(in).at("cases");
    }();
    return c;
}

} // namespace

class TestVerdictDecisions : public QObject {
    Q_OBJECT

private slots:
    void matches_reference_data()
    {
        QTest::addColumn<int>("index");
        QVERIFY(cases().size() >= 500);
        for (std::size_t i = 0; i < cases().size(); ++i)
            QTest::newRow(cases()[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
    }

    void matches_reference()
    {
        QFETCH(int, index);
        const auto& c = cases().at(static_cast<std::size_t>(index));
        const auto dir = *parse_direction(c.at("direction").get<std::string>());
        const Profile p = apply_overrides(make_profile(c.at("profile").get<std::string>(), dir), c.at("overrides"));
        const auto v = judge_samples(
            c.at("baseline").get<std::vector<double>>(), c.at("treatment").get<std::vector<double>>(), p, false);
        const std::string info = c.at("profile").get<std::string>() + " " + to_json(v).at("reasons").dump();
        QVERIFY2(std::string(to_string(v.word)) == c.at("verdict").get<std::string>(), info.c_str());
        QCOMPARE(to_json(v).at("rule").get<int>(), c.at("rule").get<int>());
        QCOMPARE(to_json(v).at("verdict").get<std::string>(), std::string(to_string(v.word)));
        if (!c.at("overrides").empty()) {
            QCOMPARE(to_json(v).at("profile").at("name").get<std::string>(), std::string("custom"));
            QVERIFY(to_json(v).at("profile").at("base") == c.at("profile"));
        }
    }
};

QTEST_GUILESS_MAIN(TestVerdictDecisions)
#include "tst_verdict_decisions.moc"
