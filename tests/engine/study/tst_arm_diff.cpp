// SPDX-License-Identifier: GPL-3.0-or-later
// The arm diff: a single-variable A/B changes exactly one parameter.
#include "study/arm_diff.h"

#include <QTest>

using namespace kwb;
using nlohmann::json;

class TestArmDiff : public QObject {
    Q_OBJECT

private slots:
    void oneDifference()
    {
        const auto d = diff_arms({{"block", 32}, {"size", 512}}, {{"block", 128}, {"size", 512}});
        QCOMPARE(d.differences.size(), size_t(1));
        QCOMPARE(d.differences[0].name, std::string("block"));
        QVERIFY(d.differences[0].baseline == json(32));
        QVERIFY(d.differences[0].treatment == json(128));
        QVERIFY(d.single_variable());
    }

    void twoDifferencesAreNamed()
    {
        const auto d = diff_arms({{"block", 32}, {"threads", 1}}, {{"block", 128}, {"threads", 2}});
        QVERIFY(!d.single_variable());
        QCOMPARE(d.names(), std::string("block, threads"));
    }

    void numbersCompareByValue() { QVERIFY(diff_arms({{"block", 128}}, {{"block", 128.0}}).differences.empty()); }

    void defaultsFillMissingParameters()
    {
        const json defaults = {{"block", 64}, {"size", 512}};
        // The treatment forces the default on itself only: not a difference, but flagged one-sided.
        auto d = diff_arms({{"block", 32}}, {{"block", 32}, {"size", 512}}, defaults);
        QVERIFY(d.differences.empty());
        QCOMPARE(d.one_sided, (std::vector<std::string> {"size"}));
        // A missing parameter with another value on the other arm is a difference.
        d = diff_arms({{"block", 32}}, {{"block", 32}, {"size", 256}}, defaults);
        QCOMPARE(d.names(), std::string("size"));
    }
};

QTEST_GUILESS_MAIN(TestArmDiff)
#include "tst_arm_diff.moc"
