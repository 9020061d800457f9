// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/command_ab_dialog.h"

#include "models/json_convert.h"
#include "models/study_document.h"
#include "pages/command_arm_editor.h"
#include "study/plan_limits.h"
#include "workloads/command/command_spec.h"
#include "workloads/command/command_study.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

// The draft the arm editor works on: two command arms with nothing filled in yet, judged on the
// engine's default metric. Nothing here is a rule: Create hands the arms to the engine.
Study draftStudy()
{
    Experiment e;
    e.id = "draft";
    e.workload = command::kCommandWorkload;
    e.metric = command::default_metric("auto");
    for (const char* name : {"baseline", "treatment"}) {
        Arm a;
        a.name = name;
        a.command = CommandSpec {};
        e.arms.push_back(std::move(a));
    }
    Study s;
    s.experiments.push_back(std::move(e));
    return s;
}

// The dialog's name for a field the engine refused.
QString fieldLabel(const std::string& field)
{
    if (field == "baseline")
        return QObject::tr("Baseline arm");
    if (field == "treatment")
        return QObject::tr("Treatment arm");
    if (field == "adapter")
        return QObject::tr("Adapter");
    if (field == "metric")
        return QObject::tr("Metric");
    if (field == "runs_per_arm")
        return QObject::tr("Runs per arm");
    return qs(field);
}

} // namespace

CommandAbDialog::CommandAbDialog(QWidget* parent)
    : QDialog(parent)
    , m_draft(new StudyDocument(this))
{
    setObjectName(u"commandAbDialog"_s);
    setWindowTitle(tr("New command A/B"));
    m_draft->newStudy(draftStudy());

    auto* intro = new QLabel(tr("Two command lines as the A/B's arms, run interleaved and read through one adapter, "
                                "as kwb new --baseline-cmd … --treatment-cmd … writes them. Change one thing "
                                "between the arms; use Test once to see what the adapter reads."),
        this);
    intro->setWordWrap(true);

    m_name = new QLineEdit(this);
    m_name->setObjectName(u"commandAbName"_s);
    m_name->setPlaceholderText(tr("command A/B: <metric>"));
    m_name->setToolTip(tr("The study's name; empty: named after the metric it judges"));
    m_runs = new QSpinBox(this);
    m_runs->setObjectName(u"commandAbRuns"_s);
    m_runs->setRange(1, 10000);
    m_runs->setValue(kDefaultRunsPerArm);
    m_runs->setToolTip(tr("Runs per arm, in whole ABBA blocks (an odd count is rounded up); the A/B page edits the "
                          "rest of the plan"));
    auto* form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Runs per arm"), m_runs);

    m_editor = new CommandArmEditor(m_draft, this);
    m_editor->showExperiment(0);
    connect(m_draft, &StudyDocument::changed, m_editor, [this] { m_editor->showExperiment(0); });

    m_error = new QLabel(this);
    m_error->setObjectName(u"commandAbError"_s);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(u"color: #c62828;"_s);
    m_error->hide();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_create = buttons->addButton(tr("Create"), QDialogButtonBox::AcceptRole);
    m_create->setObjectName(u"commandAbCreate"_s);
    m_create->setToolTip(tr("Make the study (the engine checks both arms as kwb new does); Save As follows"));
    connect(buttons, &QDialogButtonBox::accepted, this, &CommandAbDialog::create);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_editor);
    layout->addWidget(m_error);
    layout->addStretch(1);
    layout->addWidget(buttons);
    resize(720, sizeHint().height());
}

CommandAbDialog::~CommandAbDialog() = default;

QString CommandAbDialog::lastError() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

void CommandAbDialog::create()
{
    const Experiment& e = m_draft->study().experiments.front();
    command::CommandStudyRequest r;
    r.baseline = *e.arms[0].command;
    r.treatment = *e.arms[1].command;
    r.metric = e.metric;
    r.name = m_name->text().trimmed().toStdString();
    r.plan.runs_per_arm = m_runs->value();
    try {
        m_study = command::new_command_study(r);
    } catch (const command::CommandStudyError& x) {
        m_error->setText(tr("%1: %2").arg(fieldLabel(x.field()), qs(x.what())));
        m_error->show();
        return;
    }
    m_error->hide();
    accept();
}

} // namespace kwb::gui
