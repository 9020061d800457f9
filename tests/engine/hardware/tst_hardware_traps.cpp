// SPDX-License-Identifier: GPL-3.0-or-later
// The hardware sheet's traps: a configuration's shared memory per block against a GPU's, the
// blocks per SM it leaves, the architecture's known pitfalls, and datasheet peaks beside measured
// ceilings. The numbers are the playbook's (100 KB sm_89 vs 228 KB Hopper) and the gemm kernels'.
#include "builtin_workloads.h"
#include "hardware/hardware_traps.h"
#include "hardware/peak_table.h"
#include "hardware/study_traps.h"
#include "workloads/descriptions/block_needs.h"

#include <QTest>

using namespace kwb;
using nlohmann::json;

namespace {

GpuLimits part(const std::string& device)
{
    const GpuPart* p = find_gpu_part(device);
    if (!p)
        qFatal("no catalogue part for %s", device.c_str());
    return gpu_limits(*p);
}

BlockNeeds gemm_needs(const json& params)
{
    const Workload* w = builtin_workloads().find("gemm");
    const auto needs = gemm_cuda_block_needs(resolve_params(*w, params, Backend::Cuda));
    if (!needs)
        qFatal("gemm gave no block needs");
    return *needs;
}

bool any_contains(const std::vector<TrapWarning>& warnings, const std::string& text)
{
    for (const auto& w : warnings)
        if (w.text.find(text) != std::string::npos && !w.rule.empty())
            return true;
    return false;
}

Experiment cuda_gemm(const std::string& id, const json& baseline, const json& treatment)
{
    Experiment e;
    e.id = id;
    e.workload = "gemm";
    e.backend = "cuda";
    e.arms = {{"baseline", baseline}, {"treatment", treatment}};
    return e;
}

} // namespace

class TestHardwareTraps : public QObject {
    Q_OBJECT

private slots:
    void gemmSharedMemoryIsTheKernelsOwn()
    {
        // The figures tests/gpu/gpu_check_config checks against the compiled kernel on the H200.
        const BlockNeeds d = gemm_needs(json::object());
        QCOMPARE(d.smem_bytes, 3.0 * (128 * 40 + 32 * 136) * 2);
        QCOMPARE(d.threads, 256);
        QCOMPARE(d.config, std::string("tiled block 128x128x32, 3 stages"));
        const BlockNeeds big = gemm_needs({{"block_m", 256}, {"block_n", 256}, {"block_k", 64}, {"stages", 4}});
        QCOMPARE(big.smem_bytes, 4.0 * (256 * (64 + 8) + 64 * (256 + 8)) * 2);
        const BlockNeeds wg = gemm_needs({{"impl", "wgmma"}, {"block_n", 256}, {"stages", 4}, {"warps", 12}});
        QCOMPARE(wg.smem_bytes, 1024 + 4.0 * (128 * 64 * 2 + 64 * 256 * 2) + 16 * 4);
        QCOMPARE(wg.threads, 384);
        const Workload* w = builtin_workloads().find("gemm");
        QVERIFY(!gemm_cuda_block_needs(resolve_params(*w, {{"impl", "cublaslt"}}, Backend::Cuda)));
    }

    void blocksPerSmFollowTheScarcestResource()
    {
        const BlockNeeds d = gemm_needs(json::object()); // 55.5 KiB, 256 threads
        const auto h200 = block_occupancy(d, part("NVIDIA H200"));
        QVERIFY(h200.fits);
        QCOMPARE(h200.blocks_per_sm, 4); // 228 KiB / (55.5 + 1 reserved)
        QCOMPARE(h200.limiter, std::string("shared memory"));
        const auto ada = block_occupancy(d, part("NVIDIA GeForce RTX 4090"));
        QCOMPARE(ada.blocks_per_sm, 1); // 100 KiB / 56.5 KiB
        const BlockNeeds small {"tiny", 1024, 1024};
        const auto threads = block_occupancy(small, part("NVIDIA H200"));
        QCOMPARE(threads.blocks_per_sm, 2);
        QCOMPARE(threads.limiter, std::string("threads"));
    }

    void theHopperTileTrapOnA100KbPart()
    {
        // 256x64x32 with 4 stages: 98 KiB per block. On Hopper two blocks share an SM; on a 100 KB
        // sm_89 part one block fills it: the playbook's smem-bound signature.
        const BlockNeeds tile = gemm_needs({{"block_m", 256}, {"block_n", 64}, {"block_k", 32}, {"stages", 4}});
        QCOMPARE(tile.smem_bytes, 4.0 * (256 * 40 + 32 * 72) * 2);
        QVERIFY(config_traps("treatment", tile, part("NVIDIA H200")).empty());
        const auto ada = config_traps("treatment", tile, part("NVIDIA GeForce RTX 4090"));
        QCOMPARE(ada.size(), size_t(1));
        QVERIFY2(ada[0].text.find("1 block per SM") != std::string::npos, ada[0].text.c_str());
        QVERIFY(ada[0].rule.find("Playbook phase 2") != std::string::npos);
        // 128x128x64 with 3 stages (105 KiB) does not launch there at all.
        const BlockNeeds deep = gemm_needs({{"block_k", 64}});
        const auto refused = config_traps("baseline", deep, part("NVIDIA GeForce RTX 4090"));
        QCOMPARE(refused.size(), size_t(1));
        QVERIFY2(refused[0].text.find("105 KiB") != std::string::npos
                && refused[0].text.find("allows 99 KiB") != std::string::npos,
            refused[0].text.c_str());
        const std::string line = occupancy_line("baseline", deep, part("NVIDIA H200"));
        QVERIFY2(line.find("2 blocks per SM") != std::string::npos, line.c_str());
    }

    void architectureTraps()
    {
        const auto ada = architecture_traps(part("NVIDIA GeForce RTX 4070 Ti SUPER"));
        QVERIFY(any_contains(ada, "TN layout"));
        QVERIFY(any_contains(ada, "no native FP4"));
        QVERIFY(any_contains(ada, "100 KiB of shared memory per SM"));
        const auto a100 = architecture_traps(part("NVIDIA A100-SXM4-80GB"));
        QVERIFY(any_contains(a100, "no FP8 tensor-core mma"));
        QVERIFY(!any_contains(a100, "100 KiB of shared memory"));
        const auto hopper = architecture_traps(part("NVIDIA H200"));
        QVERIFY(any_contains(hopper, "sm_90a"));
        QVERIFY(!any_contains(hopper, "TN layout"));
        QVERIFY(architecture_traps(part("NVIDIA B200")).empty());
    }

    void limitsOfARecordedDevice()
    {
        const json device
            = {{"kind", "cuda"}, {"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"smem_per_sm_bytes", 233472},
                {"smem_per_block_optin_bytes", 232448}, {"max_threads_per_sm", 2048}, {"max_blocks_per_sm", 32}};
        const auto l = gpu_limits(device);
        QVERIFY(l);
        QCOMPARE(l->smem_per_sm_bytes, 233472.0);
        QCOMPARE(l->from, std::string("device sheet"));
        // An older sheet without limits borrows the catalogue's; a CPU has none.
        const auto old = gpu_limits(json {{"kind", "cuda"}, {"name", "NVIDIA H200"}});
        QVERIFY(old);
        QCOMPARE(old->smem_per_sm_bytes, 228.0 * 1024);
        QVERIFY(!gpu_limits(json {{"kind", "cpu"}, {"name", "AMD EPYC"}}));
    }

    void studyTrapsCheckEveryGpuArmOnce()
    {
        Study s;
        s.experiments.push_back(
            cuda_gemm("ab-1", json::object(), {{"block_m", 256}, {"block_n", 64}, {"block_k", 32}, {"stages", 4}}));
        Experiment cpu = cuda_gemm("ab-2", {{"block", 32}}, {{"block", 64}});
        cpu.backend = "cpu";
        s.experiments.push_back(cpu);
        const auto blocks = study_block_needs(s, builtin_block_needs);
        QCOMPARE(blocks.size(), size_t(2));
        QCOMPARE(blocks[1].who, std::string("ab-1 treatment"));
        const StudyTraps ada = study_traps(s, builtin_block_needs, part("NVIDIA GeForce RTX 4090"));
        QCOMPARE(ada.occupancy.size(), size_t(2));
        QVERIFY(any_contains(ada.warnings, "ab-1 treatment"));
        const StudyTraps hopper = study_traps(s, builtin_block_needs, part("NVIDIA H200"));
        QVERIFY(!any_contains(hopper.warnings, "ab-1"));
    }

    void peaksBesideMeasuredCeilings()
    {
        const json catalogue = find_gpu_part("NVIDIA H200")->to_json();
        const json measured = {
            {"copy_gbs",
                {{"median", 4241.8}, {"n", 15}, {"min", 4237.7}, {"max", 4243.2}, {"cv_pct", 0.04}, {"unit", "GB/s"}}},
            {"shapes", {{"copy", "cudaMemcpyAsync device to device, 1 GiB"}}}};
        const auto rows = peak_rows(catalogue, measured);
        QCOMPARE(rows.size(), size_t(4));
        const PeakRow& hbm = rows.back();
        QCOMPARE(hbm.unit, std::string("GB/s"));
        QVERIFY(hbm.datasheet && hbm.measured && hbm.pct_of_datasheet);
        QCOMPARE(hbm.measured->n, 15);
        QVERIFY(qAbs(*hbm.pct_of_datasheet - 100.0 * 4241.8 / 4800.0) < 1e-9);
        QCOMPARE(hbm.measured->how, std::string("cudaMemcpyAsync device to device, 1 GiB"));
        QVERIFY(!rows.front().measured); // no GEMM ceiling measured
        QVERIFY(peak_rows(nullptr, nullptr).empty());

        // The read-only and L2 ceilings appear once measured, the first against the HBM datasheet.
        json more = measured;
        more["read_gbs"]
            = {{"median", 4500.0}, {"n", 15}, {"min", 4490.0}, {"max", 4510.0}, {"cv_pct", 0.1}, {"unit", "GB/s"}};
        more["l2_read_gbs"]
            = {{"median", 11000.0}, {"n", 15}, {"min", 10900.0}, {"max", 11100.0}, {"cv_pct", 0.3}, {"unit", "GB/s"}};
        const auto with_reads = peak_rows(catalogue, more);
        QCOMPARE(with_reads.size(), size_t(6));
        QVERIFY(qAbs(*with_reads[4].pct_of_datasheet - 100.0 * 4500.0 / 4800.0) < 1e-9);
        QVERIFY(!with_reads[5].datasheet && with_reads[5].measured && !with_reads[5].pct_of_datasheet);
    }
};

QTEST_GUILESS_MAIN(TestHardwareTraps)
#include "tst_hardware_traps.moc"
