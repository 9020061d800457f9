// SPDX-License-Identifier: GPL-3.0-or-later
// The throttle flag from a synthetic clock record: a cap reason, a violation counter that grew,
// or a mean SM clock under 75% of the maximum flags the repetition; idle alone does not.
#include "hardware/nvml_monitor.h"

#include <QTest>

using namespace kwb;

namespace {

nvml::Reading reading(double sm_mhz, unsigned long long reasons = 0, unsigned long long power_ns = 0)
{
    nvml::Reading r;
    r.sm_clock_mhz = sm_mhz;
    r.mem_clock_mhz = 3201;
    r.power_w = 500;
    r.temperature_c = 50;
    r.clock_event_reasons = reasons;
    r.power_violation_ns = power_ns;
    r.thermal_violation_ns = 0;
    return r;
}

} // namespace

class TestNvmlMonitor : public QObject {
    Q_OBJECT

private slots:
    void fullClockIsNotThrottled()
    {
        Sample s;
        summarise_repetition({reading(1980), reading(1980)}, reading(1980), reading(1980), 1980.0, s);
        QVERIFY(!s.throttled);
        QCOMPARE(*s.clock_mhz, 1980.0);
        QCOMPARE(*s.mem_clock_mhz, 3201.0);
        QVERIFY(s.throttle_reasons.empty());
    }

    void idleBetweenLaunchesIsNoCap()
    {
        Sample s;
        summarise_repetition({reading(1900, nvml::reason::kGpuIdle)}, reading(1980), reading(1980), 1980.0, s);
        QVERIFY(!s.throttled);
        QVERIFY(s.throttle_reasons.empty());
    }

    void powerCapReasonFlags()
    {
        Sample s;
        summarise_repetition({reading(1700, nvml::reason::kSwPowerCap)}, reading(1980), reading(1980), 1980.0, s);
        QVERIFY(s.throttled);
        QCOMPARE(s.throttle_reasons, std::vector<std::string> {"sw_power_cap"});
    }

    void violationCounterBetweenReadingsFlags()
    {
        // The cap acted between two polls: no reading shows the reason, the counter grew.
        Sample s;
        summarise_repetition({}, reading(1980, 0, 1000), reading(1980, 0, 5000), 1980.0, s);
        QVERIFY(s.throttled);
        QCOMPARE(s.throttle_reasons, std::vector<std::string> {"power_violation"});
    }

    void slowMeanClockFlags()
    {
        // 1400 MHz mean of a 1980 MHz part is 71%: under 75%.
        Sample s;
        summarise_repetition({reading(1400), reading(1400)}, reading(1400), reading(1400), 1980.0, s);
        QVERIFY(s.throttled);
        QCOMPARE(*s.clock_mhz, 1400.0);
        QCOMPARE(s.throttle_reasons, std::vector<std::string> {"sm_clock_below_75pct"});
        Sample t;
        summarise_repetition({reading(1500)}, reading(1500), reading(1500), 1980.0, t); // 76%
        QVERIFY(!t.throttled);
    }

    void unknownFieldsStayEmpty()
    {
        Sample s;
        summarise_repetition({}, nvml::Reading {}, nvml::Reading {}, std::nullopt, s);
        QVERIFY(!s.clock_mhz);
        QVERIFY(!s.power_w);
        QVERIFY(!s.throttled);
    }
};

QTEST_GUILESS_MAIN(TestNvmlMonitor)
#include "tst_nvml_monitor.moc"
