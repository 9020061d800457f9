// SPDX-License-Identifier: GPL-3.0-or-later
// NVML is loaded at run time: where it is missing (CI, a laptop) every query answers "nothing"
// with one reason, and the reason names of the clock-event bits match NVML's.
#include "hardware/nvml.h"

#include <QtTest>

using namespace kwb::nvml;

class TstNvml : public QObject {
    Q_OBJECT
private slots:
    void reasonNames()
    {
        QCOMPARE(reason_names(0).size(), size_t {0});
        const auto names = reason_names(reason::kGpuIdle | reason::kSwPowerCap | reason::kHwThermalSlowdown);
        QCOMPARE(names, (std::vector<std::string> {"gpu_idle", "sw_power_cap", "hw_thermal_slowdown"}));
        QCOMPARE(reason_names(0x1000), (std::vector<std::string> {"other_0x1000"}));
    }

    void capsAreThePowerAndThermalBits()
    {
        QVERIFY(reason::kCaps & reason::kSwPowerCap);
        QVERIFY(reason::kCaps & reason::kHwThermalSlowdown);
        QVERIFY(!(reason::kCaps & reason::kGpuIdle));
        QVERIFY(!(reason::kCaps & reason::kApplicationsClocksSetting));
    }

    void missingLibraryIsOneReason()
    {
        const Library& nvml = Library::instance();
        if (nvml.available()) {
            QVERIFY(nvml.unavailable_reason().empty());
            QVERIFY(nvml.device_count() >= 0);
            return;
        }
        QVERIFY(!nvml.unavailable_reason().empty());
        QVERIFY(nvml.unavailable_reason().find('\n') == std::string::npos);
        QCOMPARE(nvml.device_count(), 0);
        QVERIFY(!nvml.device_by_index(0));
        QVERIFY(!nvml.device_by_uuid("GPU-00000000-0000-0000-0000-000000000000"));
    }
};

QTEST_GUILESS_MAIN(TstNvml)
#include "tst_nvml.moc"
