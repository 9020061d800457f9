// SPDX-License-Identifier: GPL-3.0-or-later
// The kernels' code and resources (docs/git-arms.md): cuobjdump's text parsed, the occupancy the
// resources allow on an H200 from the catalogue's per-SM limits, and the diff of two arms' kernels.
#include "hardware/cuobjdump.h"
#include "hardware/kernel_occupancy.h"
#include "verdict/kernel_code.h"

#include <QtTest>

using namespace kwb;

namespace {

const char* kUsage = R"(
Fatbin elf code:
================
arch = sm_90
code version = [1,7]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function _Z6kernelPKfPfi:
  REG:128 STACK:0 SHARED:4096 LOCAL:16 CONSTANT[0]:540 TEXTURE:0 SURFACE:0 SAMPLER:0
)";

const char* kSass = "\tcode for sm_90\n\t\tFunction : _Z6kernelPKfPfi\n\t.headerflags\t@\"EF_CUDA_SM90\"\n"
                    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
                    "        /*0010*/                   EXIT ;\n\t\t..........\n";

} // namespace

class TestKernelResources : public QObject {
    Q_OBJECT
private slots:
    void parses_resource_usage_and_sass()
    {
        const auto k = parse_resource_usage(kUsage, "bench");
        QCOMPARE(k.size(), size_t(1));
        QCOMPARE(k[0].name, std::string("_Z6kernelPKfPfi"));
        QCOMPARE(k[0].arch, std::string("sm_90"));
        QCOMPARE(*k[0].registers, 128);
        QCOMPARE(*k[0].static_smem_bytes, 4096);
        QCOMPARE(*k[0].local_bytes, 16);
        const auto h = parse_sass_hashes(kSass);
        QCOMPARE(h.size(), size_t(1));
        QCOMPARE(h.begin()->first, std::string("sm_90|_Z6kernelPKfPfi"));
        QCOMPARE(h.begin()->second.size(), size_t(64));
    }
    void occupancy_from_the_catalogue()
    {
        const GpuPart* h200 = find_gpu_part("NVIDIA H200");
        QVERIFY(h200);
        KernelResource k;
        k.registers = 32; // 32 x 32 = 1024 per warp: 64 warps fit, the thread limit binds
        auto o = kernel_occupancy(k, *h200);
        QVERIFY(o);
        QCOMPARE(o->occupancy_pct, 100.0);
        k.registers = 128; // 4096 per warp: 16 warps = 2 blocks of 8 warps
        o = kernel_occupancy(k, *h200);
        QCOMPARE(o->warps_per_sm, 16);
        QCOMPARE(o->occupancy_pct, 25.0);
        QCOMPARE(o->limiter, std::string("registers"));
        k.registers.reset(); // unknown registers: no figure
        QVERIFY(!kernel_occupancy(k, *h200));
    }
    void diff_lists_differing_kernels_first_and_says_when_sass_is_identical()
    {
        KernelInventory b, t;
        b.kernels = {{"a", "bin", "sm_90", "h1", 32, 0, 0}, {"b", "bin", "sm_90", "h2", 32, 0, 0}};
        t.kernels = {{"a", "bin", "sm_90", "h1", 32, 0, 0}, {"b", "bin", "sm_90", "h3", 96, 0, 0}};
        auto d = diff_kernels(b, t);
        QCOMPARE(d.rows.front().name, std::string("b"));
        QVERIFY(d.rows.front().code_differs && d.rows.front().resources_differ);
        QVERIFY(!d.all_sass_identical);
        FinalVerdict v;
        QVERIFY(!apply_kernel_code_rule(v, d));
        t.kernels[1] = b.kernels[1];
        d = diff_kernels(b, t);
        QVERIFY(d.all_sass_identical);
        QVERIFY(apply_kernel_code_rule(v, d));
        QVERIFY(!apply_kernel_code_rule(v, d)); // once
        QVERIFY(v.reasons.front().find("identical") != std::string::npos);
        // No kernels read (no cuobjdump): nothing to say.
        QVERIFY(!diff_kernels(KernelInventory {}, KernelInventory {}).all_sass_identical);
    }

    // The verdict names what changed in the kernels, with the occupancy it allows on the device:
    // 18 registers x 32 lanes round to 768 per warp, 10 blocks of 256 fit, threads allow 8: 100%;
    // 80 registers are 2560 per warp, 20480 per block, 3 blocks = 24 of 64 warps: 37.5%.
    void verdict_names_the_resource_change_and_its_occupancy()
    {
        const GpuPart* h200 = find_gpu_part("NVIDIA H200");
        QVERIFY(h200);
        KernelInventory b, t;
        b.kernels = {{"_Z6kernelPKfPfi", "bench", "sm_90", "h1", 18, 0, 0}, {"same", "bench", "sm_90", "h9", 32, 0, 0}};
        t.kernels = {{"_Z6kernelPKfPfi", "bench", "sm_90", "h2", 80, 0, 0}, {"same", "bench", "sm_90", "h9", 32, 0, 0}};
        const KernelDiff d = diff_kernels(b, t);
        const auto reason = resource_diff_reason(d, h200);
        QVERIFY(reason);
        QVERIFY2(reason->find("_Z6kernelPKfPfi: registers 18 -> 80 per thread") != std::string::npos, reason->c_str());
        QVERIFY2(reason->find("occupancy 100% -> 37.5% (limited by registers") != std::string::npos, reason->c_str());
        QVERIFY2(reason->find("same") == std::string::npos, reason->c_str()); // an unchanged kernel is not named
        // Without a known part: the registers, no occupancy.
        const auto bare = resource_diff_reason(d, nullptr);
        QVERIFY(bare && bare->find("occupancy") == std::string::npos);
        FinalVerdict v;
        QVERIFY(apply_resource_diff_rule(v, d, h200));
        QVERIFY(!apply_resource_diff_rule(v, d, h200)); // once
        // Only the code differs (same resources): nothing to name here.
        t.kernels[0].registers = 18;
        QVERIFY(!resource_diff_reason(diff_kernels(b, t), h200));
        // More kernels than the limit: the rest counted.
        KernelInventory many_b, many_t;
        for (int i = 0; i < 5; ++i) {
            many_b.kernels.push_back({"k" + std::to_string(i), "bin", "sm_90", "x", 32, 0, 0});
            many_t.kernels.push_back({"k" + std::to_string(i), "bin", "sm_90", "y", 64, 0, 0});
        }
        const auto capped = resource_diff_reason(diff_kernels(many_b, many_t), h200, 3);
        QVERIFY2(capped && capped->find("and 2 more") != std::string::npos, capped->c_str());
        // Two instantiations, one kernel in each arm (the driver's inventory of a tile A/B, measured
        // on an H100: 100 -> 128 registers): paired, and the change named.
        KernelInventory tile_b, tile_t;
        tile_b.kernels = {{"gemm<64>", "plugin", "sm_90", "s1", 100, 0, 0}};
        tile_t.kernels = {{"gemm<128>", "plugin", "sm_90", "s2", 128, 0, 0}};
        const auto tiles = resource_diff_reason(diff_kernels(tile_b, tile_t), nullptr);
        QVERIFY(tiles);
        QVERIFY2(
            tiles->find("gemm<64> -> gemm<128>: registers 100 -> 128 per thread") != std::string::npos, tiles->c_str());
        // Two kernels only in one arm: no pairing is guessed.
        tile_b.kernels.push_back({"other", "plugin", "sm_90", "s3", 40, 0, 0});
        QVERIFY(!resource_diff_reason(diff_kernels(tile_b, tile_t), nullptr));
    }
};

QTEST_GUILESS_MAIN(TestKernelResources)
#include "tst_kernel_resources.moc"
