// SPDX-License-Identifier: GPL-3.0-or-later
// Bounded lanes: min/max bucketing keeps spikes, order and the bound.
#include "sampling/lane_downsample.h"

#include <QTest>
#include <algorithm>

using namespace kwb;

class TestLaneDownsample : public QObject {
    Q_OBJECT

private slots:
    void keepsSpikesAndOrder()
    {
        SamplerLane lane {"dram_pct", "%", {}, {}};
        for (int i = 0; i < 10000; ++i) {
            lane.t_s.push_back(i * 1e-3);
            lane.values.push_back(50.0);
        }
        lane.values[1234] = 99.0; // a 1 ms spike
        lane.values[7777] = 1.0; // a 1 ms dip
        downsample_min_max(lane, 100);
        QVERIFY(lane.t_s.size() <= 100);
        QCOMPARE(lane.t_s.size(), lane.values.size());
        QVERIFY(std::is_sorted(lane.t_s.begin(), lane.t_s.end()));
        QCOMPARE(*std::max_element(lane.values.begin(), lane.values.end()), 99.0);
        QCOMPARE(*std::min_element(lane.values.begin(), lane.values.end()), 1.0);
        const auto spike = std::find(lane.values.begin(), lane.values.end(), 99.0) - lane.values.begin();
        QCOMPARE(lane.t_s[static_cast<size_t>(spike)], 1.234);
    }

    void shortLanesAreUntouched()
    {
        SamplerLane lane {"x", "", {0, 1, 2}, {3, 4, 5}};
        downsample_min_max(lane, 10);
        QCOMPARE(lane.values, (std::vector<double> {3, 4, 5}));
    }

    void appendBoundedStaysWithinTheBound()
    {
        SamplerLane lane {"x", "", {}, {}};
        for (int i = 0; i < 100000; ++i)
            append_bounded(lane, i, i % 97, 1000);
        QVERIFY(lane.t_s.size() <= 1000);
        QVERIFY(lane.t_s.size() >= 2);
        QCOMPARE(*std::max_element(lane.values.begin(), lane.values.end()), 96.0);
    }
};

QTEST_GUILESS_MAIN(TestLaneDownsample)
#include "tst_lane_downsample.moc"
