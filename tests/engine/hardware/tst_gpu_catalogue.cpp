// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU catalogue: every architecture the workbench supports is listed with sourced figures,
// device names find the right part, and a broken catalogue names its field.
#include "hardware/gpu_catalogue.h"
#include "util/json_reader.h"

#include <QTest>
#include <set>

using namespace kwb;
using nlohmann::json;

class TestGpuCatalogue : public QObject {
    Q_OBJECT

private slots:
    void coversEveryArchitecture()
    {
        std::set<std::string> archs;
        for (const auto& p : gpu_parts()) {
            archs.insert(p.arch);
            QVERIFY2(!p.source.empty(), p.name.c_str());
            QVERIFY2(p.peak_hbm_gbs > 0 && p.peak_bf16_tflops && *p.peak_bf16_tflops > 0, p.name.c_str());
            QVERIFY2(p.smem_per_sm_kib > 0 && p.regs_per_sm > 0 && p.threads_per_sm > 0, p.name.c_str());
        }
        for (const char* arch : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100"})
            QVERIFY2(archs.count(arch), arch);
    }

    void findsParts_data()
    {
        QTest::addColumn<QString>("device");
        QTest::addColumn<QString>("name"); // empty: unknown
        QTest::addRow("A100 SXM 80GB") << "NVIDIA A100-SXM4-80GB"
                                       << "NVIDIA A100 SXM4 80GB";
        QTest::addRow("A10 is not A100") << "NVIDIA A10"
                                         << "NVIDIA A10";
        QTest::addRow("A100 PCIe 40GB") << "NVIDIA A100-PCIE-40GB"
                                        << "NVIDIA A100 PCIe 40GB";
        QTest::addRow("H200") << "NVIDIA H200"
                              << "NVIDIA H200 SXM 141GB";
        QTest::addRow("H200 NVL: longest match") << "NVIDIA H200 NVL"
                                                 << "NVIDIA H200 NVL 141GB";
        QTest::addRow("H100 SXM") << "NVIDIA H100 80GB HBM3"
                                  << "NVIDIA H100 SXM5 80GB";
        QTest::addRow("RTX 4090") << "NVIDIA GeForce RTX 4090"
                                  << "NVIDIA GeForce RTX 4090";
        QTest::addRow("B200") << "NVIDIA B200"
                              << "NVIDIA B200";
        QTest::addRow("unknown") << "NVIDIA GeForce GTX 1080"
                                 << "";
        QTest::addRow("prefix of a longer model") << "NVIDIA A1000"
                                                  << "";
    }

    void findsParts()
    {
        QFETCH(QString, device);
        QFETCH(QString, name);
        const GpuPart* p = find_gpu_part(device.toStdString());
        if (name.isEmpty()) {
            QVERIFY(!p);
            return;
        }
        QVERIFY(p);
        QCOMPARE(QString::fromStdString(p->name), name);
    }

    void datasheetFigures()
    {
        const GpuPart* h100 = find_gpu_part("NVIDIA H100 80GB HBM3");
        QCOMPARE(h100->peak_hbm_gbs, 3350.0);
        QCOMPARE(*h100->peak_bf16_tflops, 989.4);
        QCOMPARE(h100->smem_per_sm_kib, 228.0);
        const GpuPart* a100 = find_gpu_part("NVIDIA A100-SXM4-80GB");
        QVERIFY(!a100->peak_fp8_tflops); // Ampere has no FP8 tensor cores
        QVERIFY(a100->to_json()["peak_fp8_tflops"].is_null());
        QCOMPARE(find_gpu_part("NVIDIA L40S")->threads_per_sm, 1536);
    }

    void brokenCatalogueNamesTheField_data()
    {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QString>("field");
        const json good = {{"match", "X1"}, {"name", "X 1"}, {"sm", "9.0"}, {"peak_hbm_gbs", 100}, {"source", "sheet"}};
        auto with = [&](const char* key, json value) {
            json g = good;
            g[key] = value;
            return QString::fromStdString(json {{"gpus", {g}}}.dump());
        };
        QTest::addRow("no source") << with("source", "") << "gpus[0].source";
        QTest::addRow("negative bandwidth") << with("peak_hbm_gbs", -1) << "gpus[0].peak_hbm_gbs";
        QTest::addRow("bad capability") << with("sm", "90") << "gpus[0].sm";
        QTest::addRow("zero peak") << with("peak_bf16_tflops", 0) << "gpus[0].peak_bf16_tflops";
        QTest::addRow("duplicate match") << QString::fromStdString(json {{"gpus", {good, good}}}.dump())
                                         << "gpus[1].match";
        QTest::addRow("no gpus") << "{}"
                                 << "gpus";
    }

    void brokenCatalogueNamesTheField()
    {
        QFETCH(QString, document);
        QFETCH(QString, field);
        try {
            parse_gpu_catalogue(json::parse(document.toStdString()));
            QFAIL("accepted a broken catalogue");
        } catch (const FormatError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(field), e.what());
        }
    }

    void goodEntryParsesWithDefaults()
    {
        const auto parts = parse_gpu_catalogue(json {
            {"gpus", {{{"match", "X1"}, {"name", "X 1"}, {"sm", "10.0"}, {"peak_hbm_gbs", 100}, {"source", "s"}}}}});
        QCOMPARE(parts.size(), size_t(1));
        QCOMPARE(parts[0].arch, std::string("sm_100"));
        QCOMPARE(parts[0].sm_count, 0);
        QVERIFY(parts[0].to_json()["sm_count"].is_null());
    }
};

QTEST_GUILESS_MAIN(TestGpuCatalogue)
#include "tst_gpu_catalogue.moc"
