// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics of `kwb verdict --json` against numpy/scipy on the committed fixtures
// (scripts/gen_verdict_fixtures.py writes tests/data/verdict/stats_cases.json).
#include "verdict/verdict.h"

#include <QTest>
#include <cmath>
#include <fstream>

using namespace kwb;

namespace {

nlohmann::json load_cases()
{
    std::ifstream in(KWB_TEST_DATA_DIR "/verdict/stats_cases.json");
    return nlohmann::json::parse(in).at("cases");
}

double g_max_rel_moments = 0; // means, stddev, percentiles, delta, speedup
double g_max_rel_p = 0; // Welch and Mann-Whitney p-values
double g_max_ci_diff = 0; // bootstrap CI ends, in points of delta%

double rel(double a, double b)
{
    return a == b ? 0.0 : std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b));
}

// Compares a number or null; returns an error text or empty.
std::string compare(
    const std::string& what, const nlohmann::json& got, const nlohmann::json& want, double tol, double& max_seen)
{
    if (want.is_null() || got.is_null())
        return want.is_null() == got.is_null() ? "" : what + ": got " + got.dump() + ", want " + want.dump();
    const double r = rel(got.get<double>(), want.get<double>());
    max_seen = std::max(max_seen, r);
    return r <= tol ? "" : what + ": got " + got.dump() + ", want " + want.dump();
}

} // namespace

class TestStatsScipy : public QObject {
    Q_OBJECT

private slots:
    void matches_scipy_data()
    {
        QTest::addColumn<int>("index");
        const auto cases = load_cases();
        QVERIFY(cases.size() >= 30);
        for (std::size_t i = 0; i < cases.size(); ++i)
            QTest::newRow(cases[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
    }

    void matches_scipy()
    {
        QFETCH(int, index);
        const auto c = load_cases().at(static_cast<std::size_t>(index));
        const auto dir = *parse_direction(c.at("direction").get<std::string>());
        const bool paired = c.at("paired").get<bool>();
        const auto v = judge_samples(c.at("baseline").get<std::vector<double>>(),
            c.at("treatment").get<std::vector<double>>(), make_profile("generic", dir), paired);
        const auto& want = c.at("expected");
        const auto got = to_json(v);
        std::vector<std::string> errors;
        auto check
            = [&](const std::string& what, const nlohmann::json& g, const nlohmann::json& w, double tol, double& m) {
                  if (auto e = compare(what, g, w, tol, m); !e.empty())
                      errors.push_back(e);
              };
        check("delta_pct", got.at("delta_pct"), want.at("delta_pct"), 1e-9, g_max_rel_moments);
        check("speedup", got.at("speedup"), want.at("speedup"), 1e-12, g_max_rel_moments);
        check("sigma_pct", got.at("sigma_pct"), want.at("sigma_pct"), 1e-9, g_max_rel_moments);
        check("p_welch", got.at("p_welch"), want.at("p_welch"), 1e-6, g_max_rel_p);
        check("p_mannwhitney", got.at("p_mannwhitney"), want.at("p_mannwhitney"), 1e-6, g_max_rel_p);
        if (got.at("mannwhitney_method") != want.at("mannwhitney_method"))
            errors.push_back("mannwhitney_method: got " + got.at("mannwhitney_method").dump());
        // The bootstrap: same definition, different generator; the spec allows 0.5 points per end.
        const auto& gci = got.at("ci95_delta_pct");
        const auto& wci = want.at("ci95_delta_pct");
        if (gci.is_null() != wci.is_null()) {
            errors.push_back("ci95_delta_pct null mismatch");
        } else if (!wci.is_null()) {
            for (int k = 0; k < 2; ++k) {
                const double d = std::fabs(gci[k].get<double>() - wci[k].get<double>());
                g_max_ci_diff = std::max(g_max_ci_diff, d);
                if (d > 0.5)
                    errors.push_back(
                        "ci95_delta_pct end " + std::to_string(k) + ": got " + gci.dump() + ", want " + wci.dump());
            }
        }
        for (const char* arm : {"baseline", "treatment"}) {
            const auto& ga = got.at("arms").at(arm);
            const auto& wa = want.at("arms").at(arm);
            for (const char* key : {"mean", "median", "stddev", "cv_pct", "min", "max", "p50", "p90", "p99"})
                check(std::string(arm) + "." + key, ga.at(key), wa.at(key), 1e-9, g_max_rel_moments);
            for (const char* key : {"n", "outliers_mild", "outliers_extreme", "modes"})
                if (key != std::string("modes") && ga.at(key) != wa.at(key))
                    errors.push_back(
                        std::string(arm) + "." + key + ": got " + ga.at(key).dump() + ", want " + wa.at(key).dump());
            if (got.at(std::string("bimodal_") + arm) != wa.at("bimodal"))
                errors.push_back(
                    std::string("bimodal_") + arm + ": got " + got.at(std::string("bimodal_") + arm).dump());
            if (wa.at("modes").is_null() != ga.at("modes").is_null()) {
                errors.push_back(std::string(arm) + ".modes null mismatch");
            } else if (!wa.at("modes").is_null()) {
                for (std::size_t k = 0; k < 2; ++k) {
                    check("mode share", ga.at("modes")[k].at("share"), wa.at("modes")[k].at("share"), 1e-12,
                        g_max_rel_moments);
                    check("mode mean", ga.at("modes")[k].at("mean"), wa.at("modes")[k].at("mean"), 1e-9,
                        g_max_rel_moments);
                }
            }
        }
        if (want.at("paired").is_null() != got.at("paired").is_null()) {
            errors.push_back("paired null mismatch");
        } else if (!want.at("paired").is_null()) {
            const auto& gp = got.at("paired");
            const auto& wp = want.at("paired");
            QCOMPARE(gp.at("n_pairs").get<int>(), wp.at("n_pairs").get<int>());
            check("paired.mean_delta_pct", gp.at("mean_delta_pct"), wp.at("mean_delta_pct"), 1e-9, g_max_rel_moments);
            for (int k = 0; k < 2; ++k) {
                const double d
                    = std::fabs(gp.at("ci95_delta_pct")[k].get<double>() - wp.at("ci95_delta_pct")[k].get<double>());
                g_max_ci_diff = std::max(g_max_ci_diff, d);
                if (d > 0.5)
                    errors.push_back("paired.ci95_delta_pct: got " + gp.at("ci95_delta_pct").dump());
            }
        }
        std::string all;
        for (const auto& e : errors)
            all += e + "; ";
        QVERIFY2(errors.empty(), all.c_str());
    }

    void cleanupTestCase()
    {
        qInfo("max relative error: moments/percentiles %.3g, p-values %.3g; max bootstrap CI difference %.3g points",
            g_max_rel_moments, g_max_rel_p, g_max_ci_diff);
    }
};

QTEST_GUILESS_MAIN(TestStatsScipy)
#include "tst_stats_scipy.moc"
