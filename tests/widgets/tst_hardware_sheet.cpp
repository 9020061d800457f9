// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware sheet's words and units, on a real `kwb devices --json` from an H200 machine
// (data/h200_devices.json, copied from bench/results/2026-11-30-h200-device-query).
#include "models/hardware_sheet.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

class TestHardwareSheet : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void formatBytes_data();
    void formatBytes();
    void cpuSheet();
    void cudaSheet_data();
    void cudaSheet();
    void cataloguePeaksWithTheirSource();
    void unknownKeysAreShownRawAtTheEnd();
    void missingCatalogueIsSaid();
    void longListsWrapAtTheirCommas();

private:
    QJsonArray m_devices;
};

void TestHardwareSheet::initTestCase()
{
    QFile f(KWB_WIDGETS_TEST_DATA "/h200_devices.json"_L1);
    QVERIFY(f.open(QIODevice::ReadOnly));
    m_devices = QJsonDocument::fromJson(f.readAll()).object().value("devices"_L1).toArray();
    QCOMPARE(m_devices.size(), 2);
}

void TestHardwareSheet::formatBytes_data()
{
    QTest::addColumn<double>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::addRow("bytes") << 512.0 << u"512 B"_s;
    QTest::addRow("L1d") << 49152.0 << u"48 KiB"_s;
    QTest::addRow("L2 1 MiB") << 1048576.0 << u"1 MiB"_s;
    QTest::addRow("L3 32 MiB") << 33554432.0 << u"32 MiB"_s;
    QTest::addRow("2-core memory") << 25276059648.0 << u"23.5 GiB"_s;
    QTest::addRow("H200 memory") << 150109880320.0 << u"139.8 GiB"_s;
}

void TestHardwareSheet::formatBytes()
{
    QFETCH(double, bytes);
    QFETCH(QString, expected);
    QCOMPARE(kwb::gui::formatBytes(bytes), expected);
}

void TestHardwareSheet::cpuSheet()
{
    const DeviceSheet cpu = deviceSheet(m_devices.at(0).toObject());
    QCOMPARE(cpu.heading, u"CPU"_s);
    QCOMPARE(cpu.name, u"Intel(R) Xeon(R) Processor"_s);
    QVERIFY(cpu.row(u"logical_cores"_s));
    QCOMPARE(cpu.row(u"logical_cores"_s)->value, u"16 usable · 16 online"_s);
    QCOMPARE(cpu.row(u"memory_bytes"_s)->value, u"125.9 GiB"_s);
    QCOMPARE(cpu.row(u"caches"_s)->value, u"L1d 48 KiB · L1i 32 KiB · L2 2 MiB · L3 300 MiB"_s);
    QCOMPARE(cpu.row(u"flags"_s)->value, u"amx_bf16, avx, avx2, avx512_bf16, avx512bw, avx512f, fma"_s);
    for (const SheetRow& r : cpu.rows)
        QVERIFY2(r.known, qPrintable(r.key));
}

void TestHardwareSheet::cudaSheet_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("expected");
    QTest::addRow("sm") << u"compute_capability"_s << u"sm_90  (compute capability 9.0)"_s;
    QTest::addRow("SMs") << u"sm_count"_s << u"132 SMs"_s;
    QTest::addRow("smem/SM") << u"smem_per_sm_bytes"_s << u"228 KiB"_s;
    QTest::addRow("smem/block opt-in") << u"smem_per_block_optin_bytes"_s << u"227 KiB"_s;
    QTest::addRow("regs/SM") << u"regs_per_sm"_s << u"65536 × 32-bit registers"_s;
    QTest::addRow("threads/SM") << u"max_threads_per_sm"_s << u"2048 threads"_s;
    QTest::addRow("L2") << u"l2_bytes"_s << u"60 MiB"_s;
    QTest::addRow("memory") << u"memory_bytes"_s << u"139.8 GiB"_s;
    QTest::addRow("bus") << u"memory_bus_bits"_s << u"6016 bits"_s;
    QTest::addRow("bandwidth") << u"theoretical_bandwidth_gbs"_s << u"4814 GB/s (DDR × bus)"_s;
    QTest::addRow("SM clock") << u"sm_clock_mhz"_s << u"1980 MHz"_s;
    QTest::addRow("driver") << u"driver_version"_s << u"13.0"_s;
}

void TestHardwareSheet::cudaSheet()
{
    QFETCH(QString, key);
    QFETCH(QString, expected);
    const DeviceSheet gpu = deviceSheet(m_devices.at(1).toObject());
    QCOMPARE(gpu.heading, u"GPU 0"_s);
    QCOMPARE(gpu.name, u"NVIDIA H200"_s);
    const SheetRow* row = gpu.row(key);
    QVERIFY2(row, qPrintable(key));
    QVERIFY(row->known);
    QCOMPARE(row->value, expected);
}

void TestHardwareSheet::cataloguePeaksWithTheirSource()
{
    const DeviceSheet gpu = deviceSheet(m_devices.at(1).toObject());
    const SheetRow* peaks = gpu.row(u"catalogue"_s);
    QVERIFY(peaks);
    QCOMPARE(peaks->value, u"NVIDIA H200 datasheet (SXM)"_s);
    QCOMPARE(peaks->children.size(), 10);
    QCOMPARE(gpu.row(u"peak_bf16_tflops"_s)->value, u"989 TFLOP/s (dense)"_s);
    QCOMPARE(gpu.row(u"peak_hbm_gbs"_s)->value, u"4800 GB/s"_s);
    QCOMPARE(gpu.row(u"smem_per_sm_kib"_s)->value, u"228 KiB"_s);
    QCOMPARE(gpu.row(u"source"_s)->value, u"NVIDIA H200 datasheet (SXM)"_s);
    // Every key of the device is shown under a label: nothing fell through to the raw rows.
    for (const SheetRow& r : gpu.rows)
        QVERIFY2(r.known, qPrintable(r.key));
}

void TestHardwareSheet::unknownKeysAreShownRawAtTheEnd()
{
    QJsonObject cpu = m_devices.at(0).toObject();
    cpu.insert(u"numa_nodes"_s, QJsonArray {0, 1});
    const DeviceSheet sheet = deviceSheet(cpu);
    const SheetRow& last = sheet.rows.last();
    QVERIFY(!last.known);
    QCOMPARE(last.label, u"numa_nodes"_s);
    QCOMPARE(last.value, u"[0,1]"_s);

    // A device kind the sheet has never seen still shows every field.
    const DeviceSheet other
        = deviceSheet(QJsonObject {{u"kind"_s, u"rocm"_s}, {u"name"_s, u"MI300X"_s}, {u"cus"_s, 304}});
    QCOMPARE(other.heading, u"ROCM"_s);
    QCOMPARE(other.rows.size(), 1);
    QCOMPARE(other.rows.first().value, u"304"_s);
}

void TestHardwareSheet::missingCatalogueIsSaid()
{
    QJsonObject gpu = m_devices.at(1).toObject();
    gpu.insert(u"catalogue"_s, QJsonValue::Null);
    const DeviceSheet sheet = deviceSheet(gpu); // the row points into it
    const SheetRow* peaks = sheet.row(u"catalogue"_s);
    QVERIFY(peaks);
    QVERIFY(peaks->children.isEmpty());
    QCOMPARE(peaks->value, u"not in resources/gpus.json"_s);
}

void TestHardwareSheet::longListsWrapAtTheirCommas()
{
    const QString flags = u"amx_bf16, avx, avx2, avx512_bf16, avx512bw, avx512f, fma"_s;
    QCOMPARE(wrapList(flags, 40), u"amx_bf16, avx, avx2, avx512_bf16,\navx512bw, avx512f, fma"_s);
    QCOMPARE(wrapList(u"avx, fma"_s, 40), u"avx, fma"_s);
    QCOMPARE(wrapList(u"one_very_long_flag_name"_s, 5), u"one_very_long_flag_name"_s);
}

QTEST_GUILESS_MAIN(TestHardwareSheet)
#include "tst_hardware_sheet.moc"
