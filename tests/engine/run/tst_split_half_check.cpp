// SPDX-License-Identifier: GPL-3.0-or-later
// split-half stability check: the baseline split against itself.
#include "run/split_half_check.h"

#include <QTest>
#include <algorithm>

using namespace kwb;

class TestSplitHalfCheck : public QObject {
    Q_OBJECT

private slots:
    void firstSplitInterleaves()
    {
        const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7};
        const auto [a, b] = split_halves_of(v, 0, 1);
        QCOMPARE(a, (std::vector<double> {1, 3, 5, 7}));
        QCOMPARE(b, (std::vector<double> {2, 4, 6}));
    }

    void furtherSplitsAreSeededHalvings()
    {
        std::vector<double> v(12);
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = static_cast<double>(i + 1);
        const auto s1 = split_halves_of(v, 1, 7);
        QCOMPARE(s1, split_halves_of(v, 1, 7)); // reproducible
        QVERIFY(s1 != split_halves_of(v, 2, 7)); // each split differs
        QCOMPARE(s1.first.size(), size_t(6));
        QCOMPARE(s1.second.size(), size_t(6));
        std::vector<double> both = s1.first;
        both.insert(both.end(), s1.second.begin(), s1.second.end());
        std::sort(both.begin(), both.end());
        QCOMPARE(both, v); // a partition
        QVERIFY(std::is_sorted(s1.first.begin(), s1.first.end())); // halves keep run order
    }

    void steadyBaselineHasNoFalseAlarms()
    {
        // Steady runs with a little unpatterned noise (a fixed list, so the test is deterministic).
        const std::vector<double> v = {10.03, 9.98, 10.01, 9.97, 10.02, 10.00, 9.99, 10.04, 9.96, 10.01, 10.02, 9.98};
        const auto aa = check_split_half(v, 5, make_profile("generic", Direction::Lower), 1);
        QVERIFY(aa.has_value());
        QCOMPARE(aa->splits, 5);
        QCOMPARE(aa->false_alarms, 0);
        QCOMPARE(aa->verdicts, std::vector<std::string>(5, "NOISE"));
        QCOMPARE(aa->false_alarm_rate(), 0.0);
    }

    void unstableBaselineRaisesFalseAlarms()
    {
        // A machine that changed state halfway: two clusters.
        std::vector<double> v(6, 10.0);
        v.insert(v.end(), 6, 14.0);
        const auto aa = check_split_half(v, 4, make_profile("generic", Direction::Lower), 3);
        QVERIFY(aa.has_value());
        QVERIFY(aa->false_alarms > 0);
        QCOMPARE(aa->false_alarm_rate(), static_cast<double>(aa->false_alarms) / 4);
    }

    void needsTwiceMinN()
    {
        const Profile p = make_profile("generic", Direction::Lower);
        QVERIFY(!check_split_half({1, 2, 3, 4, 5}, 5, p, 1));
        QVERIFY(check_split_half({1, 1, 1, 1, 1, 1}, 5, p, 1));
        QVERIFY(!check_split_half({1, 1, 1, 1, 1, 1}, 0, p, 1));
    }
};

QTEST_GUILESS_MAIN(TestSplitHalfCheck)
#include "tst_split_half_check.moc"
