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
};

QTEST_GUILESS_MAIN(TestKernelResources)
#include "tst_kernel_resources.moc"
