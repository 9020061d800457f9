// SPDX-License-Identifier: GPL-3.0-or-later
// The kernels table in every report format (docs/report.md, "Kernels"): each kernel of both arms of
// an A/B from STUDY.kernels.json, its registers, static shared memory, local memory, the occupancy
// those allow on the study's device and whether its SASS is the same, kernels that differ first; the
// identical-SASS reason when every kernel is unchanged; no section without an inventory.
#include "json_schema_check.h"
#include "report/render.h"
#include "study/study_file.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace kwb;
using namespace kwb::report;

namespace {

bool has(const std::string& text, const std::string& what)
{
    return text.find(what) != std::string::npos;
}

Study two_arm_study(const std::string& device)
{
    Study s;
    s.name = "kernels";
    s.hardware.device_in_use = device;
    Experiment e;
    e.id = "ab-1";
    e.workload = "gemm";
    e.metric = "time_ms";
    for (const char* name : {"baseline", "treatment"}) {
        Arm a;
        a.name = name;
        e.arms.push_back(a);
    }
    s.experiments.push_back(e);
    return s;
}

KernelResource kernel(const std::string& name, const std::string& sass, int registers, int smem = 0, int local = 0)
{
    return {name, "lib/libk.so", "sm_90", sass, registers, smem, local};
}

class Fixture {
public:
    explicit Fixture(const KernelInventories& kernels, const std::string& device = "NVIDIA H200")
    {
        path_ = dir_.filePath(QStringLiteral("study.json")).toStdString();
        Study s = two_arm_study(device);
        save_study(s, path_);
        if (!kernels.empty())
            save_kernel_inventories(path_, kernels);
    }
    Report report() const { return report_from_file(path_, ""); }
    const std::string& path() const { return path_; }

private:
    QTemporaryDir dir_;
    std::string path_;
};

KernelInventories resource_change()
{
    KernelInventory b {"cuobjdump", {kernel("same_k", "aaaa", 32), kernel("tile_k", "bbbb", 64, 16384)}, {}, ""};
    KernelInventory t {"cuobjdump", {kernel("same_k", "aaaa", 32), kernel("tile_k", "cccc", 128, 32768, 24)}, {}, ""};
    return {{"ab-1", {{"baseline", b}, {"treatment", t}}}};
}

} // namespace

class TestKernelsReport : public QObject {
    Q_OBJECT

private slots:
    void differingKernelsFirstWithOccupancy()
    {
        const Fixture f(resource_change());
        const Report r = f.report();
        QVERIFY(r.experiments.at(0).kernels);
        const KernelsReport& k = *r.experiments[0].kernels;
        QCOMPARE(k.rows.size(), std::size_t(2));
        QCOMPARE(k.rows[0].name, std::string("tile_k")); // differs: first
        QVERIFY(k.rows[0].differs && !k.rows[1].differs);
        QCOMPARE(k.rows[0].sass, std::string("differs"));
        QCOMPARE(k.rows[1].sass, std::string("same"));
        QCOMPARE(*k.rows[0].treatment.registers, 128);
        QCOMPARE(*k.rows[0].treatment.local_bytes, 24);
        QVERIFY(!k.device.empty()); // the H200's per-SM limits
        // 64 registers x 256 threads: 4 blocks, 32 of 64 warps; 128 registers: 2 blocks, 16 warps.
        QCOMPARE(*k.rows[0].baseline.occupancy_pct, 50.0);
        QCOMPARE(*k.rows[0].treatment.occupancy_pct, 25.0);
        QCOMPARE(k.rows[0].treatment.occupancy_limiter, std::string("registers"));
        QVERIFY(!k.identical_sass_reason);
    }

    void everyFormatShowsTheTable()
    {
        const Fixture f(resource_change());
        const Report r = f.report();
        std::vector<Attachment> attachments;
        for (const std::string& doc : {render_markdown(r, "r", attachments), render_html(r)}) {
            QVERIFY(has(doc, "Kernels"));
            QVERIFY(has(doc, "tile_k"));
            QVERIFY(has(doc, "64 -&gt; 128") || has(doc, "64 -> 128"));
            QVERIFY(
                has(doc, "50% (registers) -&gt; 25% (registers)") || has(doc, "50% (registers) -> 25% (registers)"));
            QVERIFY(has(doc, "differs"));
            QVERIFY(doc.find("tile_k") < doc.find("same_k")); // differing first
        }
        if (raster_available())
            QVERIFY(render_pdf(r).size() > 1000);
        const auto j = render_json(r);
        const auto& k = j.at("experiments")[0].at("kernels");
        QCOMPARE(k.at("rows")[0].at("name").get<std::string>(), std::string("tile_k"));
        QCOMPARE(k.at("rows")[0].at("treatment").at("registers").get<int>(), 128);
        QCOMPARE(k.at("rows")[0].at("treatment").at("occupancy_pct").get<double>(), 25.0);
        std::ifstream in(KWB_SOURCE_DIR "/docs/report-schema.json");
        std::vector<std::string> problems;
        kwbtest::check_schema(nlohmann::json::parse(in), j, "$", problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
    }

    void identicalSassIsSaid()
    {
        KernelInventory b {"cuobjdump", {kernel("k", "aaaa", 32)}, {}, ""};
        // The driver lists only the configuration's named kernel: "every kernel" is not claimed.
        const KernelInventory driver {"driver", b.kernels, {}, ""};
        QVERIFY(!identical_sass_reason(diff_kernels(driver, driver)));
        const Fixture f({{"ab-1", {{"baseline", b}, {"treatment", b}}}}, "");
        const Report r = f.report();
        const KernelsReport& k = *r.experiments.at(0).kernels;
        QVERIFY(k.identical_sass_reason);
        QVERIFY(k.device.empty()); // no device known: no occupancy, and the table says so
        QVERIFY(!k.rows[0].baseline.occupancy_pct);
        std::vector<Attachment> attachments;
        const std::string md = render_markdown(r, "r", attachments);
        QVERIFY(has(md, *k.identical_sass_reason));
        QVERIFY(has(md, "occupancy not computed"));
        QVERIFY(render_json(r).at("experiments")[0].at("kernels").at("identical_sass_reason").is_string());
    }

    void nothingReadIsStated()
    {
        KernelInventory none {"", {}, {"cuobjdump is not on PATH"}, ""};
        const Fixture f({{"ab-1", {{"baseline", none}, {"treatment", none}}}});
        std::vector<Attachment> attachments;
        const std::string md = render_markdown(f.report(), "r", attachments);
        QVERIFY(has(md, "No CUDA kernel was read"));
        QVERIFY(has(md, "baseline: cuobjdump is not on PATH"));
    }

    void absentWithoutAnInventory()
    {
        const Fixture f({});
        const Report r = f.report();
        QVERIFY(!r.experiments.at(0).kernels);
        std::vector<Attachment> attachments;
        QVERIFY(!has(render_markdown(r, "r", attachments), "### Kernels"));
        QVERIFY(render_json(r).at("experiments")[0].at("kernels").is_null());
        // One arm without an inventory: no table either.
        KernelInventory b {"driver", {kernel("k", "aaaa", 32)}, {}, ""};
        const Fixture one({{"ab-1", {{"baseline", b}}}});
        QVERIFY(!one.report().experiments.at(0).kernels);
    }

    void malformedFileIsNamed()
    {
        const Fixture f({});
        std::ofstream(kernels_path(f.path())) << "[1, 2]";
        const Report r = f.report();
        QVERIFY(!r.kernels_problem.empty());
        QVERIFY(render_json(r).at("kernels_problem").is_string());
    }
};

QTEST_GUILESS_MAIN(TestKernelsReport)
#include "tst_kernels_report.moc"
