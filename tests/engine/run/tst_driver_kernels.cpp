// SPDX-License-Identifier: GPL-3.0-or-later
// The embedded workloads' kernels through the driver's function attributes (run/driver_kernels.h),
// against a fake GPU backend table: each A/B arm's kernel recorded as source "driver" in
// STUDY.kernels.json, its SASS hash matched from the plugin file's cuobjdump reading, the diff of
// two configurations naming their registers; the CPU backend and an older plugin record nothing
// and say why.
#include "fake_workload.h"
#include "run/driver_kernels.h"
#include "study/study_file.h"

#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::test;

namespace {

// A tile of 128 ("speed" 2 here) needs twice the registers of a tile of 64, as gemm tiled's
// block_m does; "wrong" 1 is a configuration the plugin refuses.
const char* fake_kernel_attributes(const char* workload, const char* params_json, int device)
{
    thread_local std::string text;
    const auto p = nlohmann::json::parse(params_json);
    if (p.at("wrong").get<int>() != 0)
        return (text = R"({"error": "block 512 needs 300 KiB of shared memory"})").c_str();
    const int registers = p.at("speed").get<double>() > 1.5 ? 128 : 64;
    text = nlohmann::json {{"library", "/opt/kwb/lib/libkwb_gpu_backend.so"},
        {"kernels",
            {{{"name", std::string("_Z4tileILi") + (registers == 128 ? "128" : "64") + "EEvv"}, {"arch", "sm_90"},
                {"registers", registers}, {"static_smem_bytes", 16384}, {"local_bytes", 0},
                {"threads_per_block", 256}}}},
        {"notes", {std::string(workload) + " on device " + std::to_string(device)}}}
               .dump();
    return text.c_str();
}

const KwbGpuKernelAttributesApi kFakeApi {KWB_GPU_KERNEL_ATTRIBUTES_ABI_VERSION, &fake_kernel_attributes};

Experiment ab(double treatment_speed, int treatment_wrong = 0)
{
    Experiment e;
    e.id = "ab-1";
    e.workload = "fake";
    e.metric = "time_ms";
    e.arms = {{"baseline", {{"speed", 1.0}}}, {"treatment", {{"speed", treatment_speed}, {"wrong", treatment_wrong}}}};
    return e;
}

} // namespace

class TestDriverKernels : public QObject {
    Q_OBJECT

private slots:
    void recordsBothArmsAndTheirDiff()
    {
        FakeWorkload w(nullptr);
        KernelInventory sass; // what cuobjdump read in the plugin file
        sass.source = "cuobjdump";
        sass.kernels.push_back({"_Z4tileILi64EEvv", "libkwb_gpu_backend.so", "sm_90", "aa11", 64, 16384, 0});
        const EmbeddedKernels k = embedded_kernels(w, ab(2.0), Backend::Cuda, 1, &kFakeApi, "", sass);
        QVERIFY(k.notes.empty());
        QCOMPARE(k.arms.size(), std::size_t(2));
        const KernelInventory& b = k.arms.at("baseline");
        QCOMPARE(b.source, std::string("driver"));
        QCOMPARE(*b.kernels.at(0).registers, 64);
        QCOMPARE(b.kernels.at(0).binary, std::string("libkwb_gpu_backend.so"));
        QCOMPARE(b.kernels.at(0).sass_sha256, std::string("aa11")); // matched by name and arch
        QCOMPARE(b.notes.at(0), std::string("fake on device 1"));
        QVERIFY(k.arms.at("treatment").kernels.at(0).sass_sha256.empty()); // cuobjdump did not list it

        QTemporaryDir dir;
        const std::string study = dir.filePath(QStringLiteral("s.json")).toStdString();
        record_embedded_kernels(study, "ab-1", k);
        const KernelInventories all = load_kernel_inventories(study);
        const auto& arms = all.at("ab-1");
        QCOMPARE(*arms.at("treatment").kernels.at(0).registers, 128);
        const KernelDiff diff = diff_kernels(arms.at("baseline"), arms.at("treatment"));
        QVERIFY(diff.any_kernels && !diff.all_sass_identical);
        QVERIFY(diff.rows.front().differs());
    }

    void sameConfigurationSameKernel()
    {
        FakeWorkload w(nullptr);
        const EmbeddedKernels k = embedded_kernels(w, ab(1.0), Backend::Cuda, 0, &kFakeApi, "");
        const KernelDiff diff = diff_kernels(k.arms.at("baseline"), k.arms.at("treatment"));
        QCOMPARE(diff.rows.size(), std::size_t(1));
        QVERIFY(!diff.rows[0].resources_differ);
    }

    void aRefusedConfigurationIsANote()
    {
        FakeWorkload w(nullptr);
        const EmbeddedKernels k = embedded_kernels(w, ab(2.0, 1), Backend::Cuda, 0, &kFakeApi, "");
        const KernelInventory& t = k.arms.at("treatment");
        QVERIFY(t.source.empty() && t.kernels.empty());
        QVERIFY2(t.notes.at(0).find("300 KiB") != std::string::npos, t.notes.at(0).c_str());
    }

    void cpuAndOlderPluginsRecordNothing()
    {
        FakeWorkload w(nullptr);
        auto k = embedded_kernels(w, ab(2.0), Backend::Cpu, 0, &kFakeApi, "");
        QVERIFY(k.arms.empty());
        QVERIFY2(k.notes.at(0).find("CPU backend") != std::string::npos, k.notes.at(0).c_str());
        k = embedded_kernels(w, ab(2.0), Backend::Cuda, 0, nullptr, "the plugin is older than this kwb");
        QVERIFY(k.arms.empty());
        QVERIFY(k.notes.at(0).find("older") != std::string::npos);
        QTemporaryDir dir;
        const std::string study = dir.filePath(QStringLiteral("s.json")).toStdString();
        record_embedded_kernels(study, "ab-1", k);
        QVERIFY(!std::filesystem::exists(kernels_path(study))); // nothing written
    }

    void malformedRepliesReadAsNotes()
    {
        QVERIFY(driver_inventory(nlohmann::json::array()).kernels.empty());
        const auto k = driver_inventory(
            nlohmann::json::parse(R"({"kernels": [{"name": "k", "registers": -3}, {"registers": 8}], "notes": [1]})"));
        QCOMPARE(k.kernels.size(), std::size_t(1));
        QVERIFY(!k.kernels[0].registers); // out of range: unknown, never invented
    }
};

QTEST_GUILESS_MAIN(TestDriverKernels)
#include "tst_driver_kernels.moc"
