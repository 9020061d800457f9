// SPDX-License-Identifier: GPL-3.0-or-later
// Choosing samplers: the permission fallback (counters restricted to admins, no CUPTI, no plugin)
// is known before the run, stated in one line with the fix, and leaves the other samplers.
#include "sampling/cupti_source.h"
#include "sampling/queued_sampler.h"
#include "sampling/sampler_set.h"

#include <QTest>

using namespace kwb;

namespace {

const char* g_status = "";
int g_opens = 0;
const char* status(int)
{
    return g_status;
}
KwbPmSampler* open_fails(int, const char*, unsigned long long, const char** error)
{
    ++g_opens;
    *error = "cuptiPmSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35): GPU performance counters are restricted "
             "to admin users (ERR_NVGPUCTRPERM); run as root or load the driver with "
             "NVreg_RestrictProfilingToAdminUsers=0";
    return nullptr;
}

KwbGpuBackendApi fake_api()
{
    KwbGpuBackendApi api {};
    api.abi_version = KWB_GPU_BACKEND_ABI_VERSION;
    api.cupti_status = &status;
    api.pm_open = &open_fails;
    return api;
}

bool mentions(const std::vector<std::string>& lines, const std::string& what)
{
    for (const auto& l : lines)
        if (l.find(what) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestSamplerSet : public QObject {
    Q_OBJECT

private slots:
    void cpuRunsGetProcfsOnly()
    {
        const auto set = choose_samplers({});
        QCOMPARE(set.owned.size(), size_t {1});
        QCOMPARE(set.owned.front()->name(), std::string("procfs"));
        QVERIFY(set.cupti == nullptr);
    }

    void restrictedCountersAreExplainedWithTheFixBeforeTheRun()
    {
        g_status = "cuptiPmSamplingGetCounterAvailability: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35): GPU performance "
                   "counters are restricted to admin users (ERR_NVGPUCTRPERM); run as root";
        g_opens = 0;
        const auto api = fake_api();
        SamplerChoice choice;
        choice.gpu = true;
        choice.api = &api;
        const auto set = choose_samplers(choice);
        QVERIFY(set.cupti == nullptr);
        QCOMPARE(g_opens, 0); // the status check caught it; nothing was configured
        QVERIFY(mentions(set.limitations, "no CUPTI PM sampling"));
        QVERIFY(mentions(set.limitations, "ERR_NVGPUCTRPERM"));
        QVERIFY(mentions(set.limitations, "GPU timing unaffected"));
        // procfs still runs, and every limitation is one line.
        QCOMPARE(set.owned.front()->name(), std::string("procfs"));
        for (const auto& l : set.limitations)
            QVERIFY(l.find('\n') == std::string::npos);
    }

    void aFailedConfigurationIsAlsoALimitation()
    {
        g_status = "";
        g_opens = 0;
        const auto api = fake_api();
        CuptiSource source(&api, 0);
        QCOMPARE(g_opens, 1);
        QVERIFY(source.unavailable_reason().find("NVreg_RestrictProfilingToAdminUsers=0") != std::string::npos);
    }

    void noPluginNoCupti()
    {
        SamplerChoice choice;
        choice.gpu = true;
        choice.api_reason = "GPU backend plugin not found";
        const auto set = choose_samplers(choice);
        QVERIFY(set.cupti == nullptr);
        QVERIFY(mentions(set.limitations, "GPU backend plugin not found"));
    }

    void cuptiCanBeTurnedOff()
    {
        SamplerChoice choice;
        choice.gpu = true;
        choice.cupti = false;
        const auto set = choose_samplers(choice);
        QVERIFY(mentions(set.limitations, "--no-cupti"));
    }
};

QTEST_GUILESS_MAIN(TestSamplerSet)
#include "tst_sampler_set.moc"
