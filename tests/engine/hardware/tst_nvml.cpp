// SPDX-License-Identifier: GPL-3.0-or-later
// NVML is loaded at run time: where it is missing (CI, a laptop) every query answers "nothing"
// with one reason, and the reason names of the clock-event bits match NVML's.
#include "hardware/nvml.h"

#include <QDir>
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

    // Checked against what the kernel driver itself lists (/proc/driver/nvidia/gpus/, one folder per
    // GPU), a source independent of NVML: with the driver loaded, NVML must load and count the same
    // GPUs; without it, NVML is unavailable with one reason and every query answers "nothing".
    void libraryAgreesWithTheDriver()
    {
        const QDir driver(QStringLiteral("/proc/driver/nvidia/gpus"));
        const int driver_gpus
            = driver.exists() ? static_cast<int>(driver.entryList(QDir::Dirs | QDir::NoDotAndDotDot).size()) : 0;
        const Library& nvml = Library::instance();
        if (driver_gpus > 0) {
            QVERIFY2(nvml.available(), nvml.unavailable_reason().c_str());
            QVERIFY(nvml.unavailable_reason().empty());
            QCOMPARE(nvml.device_count(), driver_gpus);
            QVERIFY(nvml.device_by_index(0).has_value());
            return;
        }
        if (nvml.available()) // a library without a driver: it loads, but sees no GPU
            QCOMPARE(nvml.device_count(), 0);
        else
            QVERIFY(!nvml.unavailable_reason().empty());
        QVERIFY(nvml.unavailable_reason().find('\n') == std::string::npos);
        QCOMPARE(nvml.device_count(), 0);
        QVERIFY(!nvml.device_by_index(0));
        QVERIFY(!nvml.device_by_uuid("GPU-00000000-0000-0000-0000-000000000000"));
    }
};

QTEST_GUILESS_MAIN(TstNvml)
#include "tst_nvml.moc"
