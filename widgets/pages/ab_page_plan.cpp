// SPDX-License-Identifier: GPL-3.0-or-later
// Phase 5's run settings: runs, warm-up, order, stop rule, duration, profile, guards and the A/A arm,
// built, shown and edited (each edit one undo step).
#include "models/device_probe.h"
#include "models/json_convert.h"
#include "models/study_document.h"
#include "pages/ab_page.h"
#include "study/gates.h"
#include "study/plan_limits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableWidget>

namespace kwb::gui {

using namespace Qt::StringLiterals;

QGridLayout* AbPage::buildPlanSettings()
{
    auto* settings = new QGridLayout;
    m_runs = new QSpinBox(this);
    m_runs->setObjectName(u"abRuns"_s);
    m_runs->setRange(1, 10000);
    m_runs->setToolTip(tr("Runs per arm (Count), or the most per arm (Decision). The verdict needs n ≥ 3."));
    m_warmup = new QSpinBox(this);
    m_warmup->setObjectName(u"abWarmup"_s);
    m_warmup->setRange(0, 100);
    m_warmup->setToolTip(tr("Warm-up runs per arm, recorded and never judged (matched control: same warm-up; "
                            "warm vs cold state is the trap)"));
    m_order = new QComboBox(this);
    m_order->addItem(tr("ABBA"), u"abba"_s);
    m_order->addItem(tr("randomised blocks"), u"random"_s);
    m_stop = new QComboBox(this);
    m_stop->setObjectName(u"abStopRule"_s);
    m_stop->addItem(tr("count"), u"count"_s);
    m_stop->addItem(tr("duration"), u"duration"_s);
    m_stop->addItem(tr("decision"), u"decision"_s);
    m_order->setToolTip(tr("Interleaved order of the arms' runs: ABBA, or randomised blocks, so drift hits both arms "
                           "alike"));
    m_stop->setToolTip(tr("count: exactly the runs per arm; duration: a set time (sustained load, not only counts); "
                          "decision: stop once the verdict is settled (docs/stopping.md)"));
    m_duration = new QDoubleSpinBox(this);
    m_duration->setRange(0, 86400);
    m_duration->setSuffix(tr(" s"));
    m_duration->setToolTip(tr("The duration rule's wall time: runs of a set duration catch what a count at "
                              "concurrency 1 misses"));
    m_profile = new QComboBox(this);
    m_profile->setObjectName(u"abProfile"_s);
    m_profile->addItems({u"generic"_s, u"strict"_s, u"speedup"_s});
    m_profile->setToolTip(tr("The verdict's thresholds (spec/verdict.md): generic licenses at ≥ 10 % with sigma < "
                             "5 % over n ≥ 3; speedup judges a ratio"));
    m_guards = new QLineEdit(this);
    m_guards->setObjectName(u"abGuards"_s);
    m_guards->setPlaceholderText(tr("metrics that must not regress, comma separated"));
    m_guards->setToolTip(tr("Guard metrics: a win on the target metric that regresses one of these is killed "
                            "(the playbook's \"any ITL / tok-s regression\" kill threshold)"));
    settings->addWidget(new QLabel(tr("Runs per arm"), this), 0, 0);
    settings->addWidget(m_runs, 0, 1);
    settings->addWidget(new QLabel(tr("Warm-up"), this), 0, 2);
    settings->addWidget(m_warmup, 0, 3);
    settings->addWidget(new QLabel(tr("Order"), this), 0, 4);
    settings->addWidget(m_order, 0, 5);
    settings->addWidget(new QLabel(tr("Stop rule"), this), 1, 0);
    settings->addWidget(m_stop, 1, 1);
    settings->addWidget(new QLabel(tr("Duration"), this), 1, 2);
    settings->addWidget(m_duration, 1, 3);
    settings->addWidget(new QLabel(tr("Profile"), this), 1, 4);
    settings->addWidget(m_profile, 1, 5);
    settings->addWidget(new QLabel(tr("Guards"), this), 2, 0);
    settings->addWidget(m_guards, 2, 1, 1, 5);
    m_aaArm = new QCheckBox(tr("A/A arm: run the baseline again beside the A/B"), this);
    m_aaArm->setObjectName(u"abAaArm"_s);
    m_aaArm->setToolTip(tr("A third arm with the baseline's configuration, interleaved in every block and run to "
                           "the same n. Its verdict against the baseline is a false-alarm check at the A/B's own "
                           "n, and joins this device's A/A history."));
    settings->addWidget(m_aaArm, 3, 0, 1, 6);
    return settings;
}

void AbPage::fillPlan(const Experiment& e)
{
    m_runs->setValue(e.plan.runs_per_arm);
    m_warmup->setValue(e.plan.warmup_runs);
    m_order->setCurrentIndex(e.plan.order == RunOrder::Abba ? 0 : 1);
    m_stop->setCurrentIndex(static_cast<int>(e.plan.stop));
    m_duration->setValue(e.plan.duration_s);
    m_duration->setEnabled(e.samples.empty() && e.plan.stop == StopRule::Duration);
    m_profile->setCurrentText(qs(e.profile));
    QStringList guards;
    for (const auto& g : e.guards)
        guards << qs(g);
    if (!m_guards->hasFocus())
        m_guards->setText(guards.join(u", "_s));
}

void AbPage::settingsEdited()
{
    const int i = experimentIndex();
    if (m_filling || i < 0)
        return;
    const int runs = m_runs->value(), warmup = m_warmup->value();
    const bool random = m_order->currentData().toString() == "random"_L1;
    const QString stop = m_stop->currentData().toString();
    const double duration = m_duration->value();
    const std::string profile = m_profile->currentText().toStdString();
    const std::string backend = m_backend->currentText().toStdString();
    std::vector<std::string> guards;
    for (const QString& g : m_guards->text().split(u',', Qt::SkipEmptyParts))
        if (!g.trimmed().isEmpty())
            guards.push_back(g.trimmed().toStdString());
    document()->edit(tr("Edit the run settings"), [=](Study& s) {
        Experiment& e = s.experiments[static_cast<size_t>(i)];
        // Whole ABBA blocks, as kwb new plans them (study/plan_limits.h).
        e.plan.runs_per_arm = random ? runs : whole_abba_runs(runs);
        e.plan.warmup_runs = warmup;
        e.plan.order = random ? RunOrder::RandomisedBlocks : RunOrder::Abba;
        e.plan.stop = stop == "duration"_L1 ? StopRule::Duration
            : stop == "decision"_L1         ? StopRule::Decision
                                            : StopRule::Count;
        e.plan.duration_s = duration;
        e.profile = profile;
        e.backend = backend;
        e.guards = guards;
    });
}

} // namespace kwb::gui
