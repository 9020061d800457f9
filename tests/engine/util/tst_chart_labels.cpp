// SPDX-License-Identifier: GPL-3.0-or-later
// The delta chart's label rule (util/chart_labels.h), which the window and the report both ask.
#include "util/chart_labels.h"

#include <QTest>

using namespace kwb;

class TestChartLabels : public QObject {
    Q_OBJECT
private slots:
    void noiseLabelIsCentredWhereFree()
    {
        const LabelRoom room {0, 600, {500, 520}};
        QCOMPARE(place_centred_label(room, 300, 100), 250.0);
    }

    void noiseLabelMovesOffAThresholdLine()
    {
        // Centred on 480 it would span 430..530 across both lines: it goes to the nearest place
        // that keeps 3 px clear of the kill line at 500.
        const LabelRoom room {0, 600, {500, 520}};
        const double left = place_centred_label(room, 480, 100);
        QVERIFY(room.crosses_no_line(left, 100));
        QCOMPARE(left, 396.0);
    }

    void noiseLabelStaysInside()
    {
        const LabelRoom room {10, 600, {}};
        QCOMPARE(place_centred_label(room, 20, 100), 10.0);
    }

    void deltaLabelPrefersTheNearerSideThenTwoLines()
    {
        const LabelRoom room {0, 600, {300, 320}};
        // In the right half, one line ending at the point.
        const DeltaLabelPlace right = place_delta_label(room, 550, 200, 120);
        QVERIFY(!right.two_lines);
        QCOMPARE(right.left, 350.0);
        // Between the lines and the edge with no room for one line: two lines.
        const DeltaLabelPlace narrow = place_delta_label(room, 450, 290, 130);
        QVERIFY(narrow.two_lines);
        QVERIFY(room.inside(narrow.left, 130) && room.crosses_no_line(narrow.left, 130));
    }

    void thresholdLabelsWidenTheRange()
    {
        // license at the right end of a 400 px axis over [0, 10]: 80 px of label need the range
        // widened until (hi - 10) / (hi - lo) * 400 >= 80 + 4.
        const auto [lo, hi] = widen_for_line_labels(0, 10, 400, {{10, 80, false}, {0, 60, true}});
        QVERIFY((hi - 10) / (hi - lo) * 400 >= 84 - 1e-6);
        QVERIFY((0 - lo) / (hi - lo) * 400 >= 64 - 1e-6);
        // Labels that already fit leave the range alone.
        const auto same = widen_for_line_labels(-50, 50, 400, {{0, 40, false}, {-5, 40, true}});
        QCOMPARE(same.first, -50.0);
        QCOMPARE(same.second, 50.0);
        // Labels wider than the axis cannot fit: the range is left as it was.
        const auto tiny = widen_for_line_labels(0, 10, 100, {{10, 80, false}, {0, 60, true}});
        QCOMPARE(tiny.second, 10.0);
    }
};

QTEST_GUILESS_MAIN(TestChartLabels)
#include "tst_chart_labels.moc"
