// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/ab_page.h"

#include "models/ab_editing.h"
#include "models/device_probe.h"
#include "models/json_convert.h"
#include "models/run_controller.h"
#include "models/study_document.h"
#include "models/workload_catalog.h"
#include "pages/command_arm_editor.h"
#include "pages/commit_arms_panel.h"
#include "pages/worker_arm_editor.h"
#include "study/arm_diff.h"
#include "study/arm_roles.h"
#include "study/gates.h"
#include "study/plan_limits.h"
#include "workloads/command/command_spec.h"
#include "workloads/worker/worker_check.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
QString cellText(const nlohmann::json& v)
{
    return v.is_string() ? qs(v.get<std::string>()) : v.is_null() ? QString() : qs(v.dump());
}
const QColor kVaried(255, 236, 179);
} // namespace

AbPage::AbPage(StudyDocument* document, RunController* run, DeviceProbe* probe, QWidget* parent)
    : PhasePage(document, tr("5 · Single-variable A/B"),
        tr("One variable; matched controls (same data, dtypes, warm-up, duration, no other load); "
           "interleaved repetitions; n ≥ 3 per arm and sigma < 5 %."),
        parent)
    , m_run(run)
    , m_probe(probe)
{
    setObjectName(u"abPage"_s);
    auto* top = new QHBoxLayout;
    m_create = new QPushButton(tr("New A/B"), this);
    m_create->setObjectName(u"createAb"_s);
    m_create->setToolTip(tr("Add a two-arm A/B of the chosen workload to the study"));
    m_newCommand = new QPushButton(tr("New command A/B…"), this);
    m_newCommand->setObjectName(u"newCommandAb"_s);
    m_newCommand->setToolTip(tr("A new study whose arms are two command lines (your own benchmark), read through an "
                                "adapter: File > New command A/B"));
    m_newGit = new QPushButton(tr("New A/B from commits…"), this);
    m_newGit->setObjectName(u"newGitAb"_s);
    m_newGit->setToolTip(tr("A new study whose arms are two commits of your repository, each built in its own "
                            "worktree: File > New A/B from two commits"));
    m_workload = new QComboBox(this);
    m_workload->setObjectName(u"abWorkload"_s);
    // The built-in workloads; external commands start from New command A/B.
    QStringList builtIn = workloadNames();
    builtIn.removeAll(QString::fromLatin1(command::kCommandWorkload));
    m_workload->addItems(builtIn);
    m_workload->setToolTip(tr("The built-in workload both arms run; changing it starts the arms over"));
    m_backend = new QComboBox(this);
    m_backend->setObjectName(u"abBackend"_s);
    m_backend->addItems({u"cpu"_s, u"cuda"_s, u"auto"_s});
    m_backend->setToolTip(tr("Where both arms run: cpu, cuda (the GPU backend), or auto (a GPU when there is one). "
                             "Same device for both arms is a matched control."));
    m_variedBox = new QComboBox(this);
    m_variedBox->setObjectName(u"abVaried"_s);
    m_variedBox->setToolTip(tr("Playbook phase 5: one variable. Only this parameter may differ between the arms."));
    m_workloadLabel = new QLabel(tr("Workload"), this);
    m_backendLabel = new QLabel(tr("Backend"), this);
    m_variedLabel = new QLabel(tr("Varied parameter"), this);
    top->addWidget(m_create);
    top->addWidget(m_workloadLabel);
    top->addWidget(m_workload, 1);
    top->addWidget(m_backendLabel);
    top->addWidget(m_backend);
    top->addWidget(m_variedLabel);
    top->addWidget(m_variedBox, 1);
    // A command A/B hides the workload fields: the spacer keeps New A/B a button, not a bar.
    top->addStretch();
    body()->addLayout(top);
    m_experiment = valueLabel(this);
    // Beside the experiment line rather than in the row above, which fills 1024 px already.
    auto* experimentRow = new QHBoxLayout;
    experimentRow->addWidget(m_experiment, 1);
    experimentRow->addWidget(m_newCommand);
    experimentRow->addWidget(m_newGit);
    body()->addLayout(experimentRow);
    // External-command arms (docs/adapters.md) are edited here instead of the parameter table.
    m_commandArms = new CommandArmEditor(document, this);
    body()->addWidget(m_commandArms);
    // Worker arms (docs/worker-protocol.md): their processes here, their parameters in the table.
    m_workerArms = new WorkerArmEditor(document, this);
    body()->addWidget(m_workerArms);
    // Commit arms (docs/git-arms.md): their commits, builds and logs, kernels, and a bisect's path.
    m_commitArms = new CommitArmsPanel(this);
    body()->addWidget(m_commitArms, 1);

    auto* columns = new QHBoxLayout;
    auto* left = new QVBoxLayout;
    m_armsLabel = sectionLabel(tr("Arms (double-click a value to edit it)"), this);
    left->addWidget(m_armsLabel);
    m_arms = keyValueTable(this, {tr("parameter"), tr("baseline"), tr("treatment")});
    m_arms->setObjectName(u"armsTable"_s);
    m_arms->setToolTip(tr("Playbook phase 5: one thing changes, all else stays. Shared parameters are edited on "
                          "the baseline; only the varied parameter differs on the treatment."));
    m_arms->setEditTriggers(
        QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    left->addWidget(m_arms, 1);
    m_diff = valueLabel(this);
    m_diff->setObjectName(u"armDiff"_s);
    left->addWidget(m_diff);
    left->addStretch(0); // a command A/B hides the table: its diff stays under the editor, not at the foot
    auto* right = new QVBoxLayout;
    right->addWidget(sectionLabel(tr("Matched controls"), this));
    m_controls = keyValueTable(this, {tr("control"), tr("checked")});
    m_controls->setObjectName(u"controlsTable"_s);
    m_controls->setToolTip(tr("Playbook phase 5 matched-control checklist: every miss is an uncontrolled "
                              "comparison. Measurable controls are ticked by the engine; tick the others yourself."));
    m_controls->setWordWrap(false);
    // The control's name is what the user reads; how it was checked is in the row's tooltip too.
    m_controls->horizontalHeader()->setStretchLastSection(true);
    m_controls->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    right->addWidget(m_controls, 1);
    columns->addLayout(left, 1);
    columns->addLayout(right, 1);
    body()->addLayout(columns, 1);

    body()->addLayout(buildPlanSettings());

    auto* runRow = new QHBoxLayout;
    m_start = new QPushButton(tr("Start"), this);
    m_start->setObjectName(u"abStart"_s);
    m_stopButton = new QPushButton(tr("Stop"), this);
    m_stopButton->setObjectName(u"abStop"_s);
    m_stopButton->setToolTip(tr("Stop after the current repetition; finished repetitions are kept (Esc)"));
    m_progress = valueLabel(this);
    m_progress->setObjectName(u"abProgress"_s);
    runRow->addWidget(m_start);
    runRow->addWidget(m_stopButton);
    runRow->addWidget(m_progress, 1);
    body()->addLayout(runRow);

    connect(m_create, &QPushButton::clicked, this, &AbPage::createExperiment);
    connect(m_newCommand, &QPushButton::clicked, this, &AbPage::newCommandAbRequested);
    connect(m_newGit, &QPushButton::clicked, this, &AbPage::newGitAbRequested);
    connect(m_workload, &QComboBox::activated, this, [this] {
        const int i = experimentIndex();
        if (i < 0)
            return;
        const std::string name = m_workload->currentText().toStdString();
        m_varied.clear();
        this->document()->edit(tr("Change the A/B's workload"),
            [i, name](Study& s) { setWorkload(s.experiments[static_cast<size_t>(i)], name); });
    });
    connect(m_backend, &QComboBox::activated, this, [this] { settingsEdited(); });
    connect(m_variedBox, &QComboBox::activated, this, &AbPage::variedChosen);
    connect(m_arms, &QTableWidget::cellChanged, this, &AbPage::cellEdited);
    connect(m_controls, &QTableWidget::cellChanged, this, &AbPage::controlToggled);
    for (QSpinBox* s : {m_runs, m_warmup})
        connect(s, &QSpinBox::editingFinished, this, &AbPage::settingsEdited);
    connect(m_duration, &QDoubleSpinBox::editingFinished, this, &AbPage::settingsEdited);
    for (QComboBox* c : {m_order, m_stop, m_profile})
        connect(c, &QComboBox::activated, this, &AbPage::settingsEdited);
    connect(m_guards, &QLineEdit::editingFinished, this, &AbPage::settingsEdited);
    connect(m_aaArm, &QCheckBox::toggled, this, [this](bool on) {
        const int i = experimentIndex();
        if (m_filling || i < 0)
            return;
        this->document()->edit(on ? tr("Add the A/A arm") : tr("Remove the A/A arm"), [i, on](Study& s) {
            Experiment& e = s.experiments[static_cast<size_t>(i)];
            if (on && !aa_arm(e))
                add_aa_arm(e);
            else if (!on)
                remove_aa_arm(e);
        });
    });
    connect(m_start, &QPushButton::clicked, this, &AbPage::runRequested);
    connect(m_stopButton, &QPushButton::clicked, this, &AbPage::stopRequested);
    if (m_run) {
        connect(m_run, &RunController::progressChanged, this, &AbPage::updateRunButtons);
        connect(m_run, &RunController::stateChanged, this, &AbPage::updateRunButtons);
    }
    if (m_probe)
        connect(m_probe, &DeviceProbe::finished, this, [this] { refresh(); });
}

int AbPage::experimentIndex() const
{
    // The A/B being set up: the last one not yet finished, else the one the other views show.
    const auto& ex = document()->study().experiments;
    for (int i = static_cast<int>(ex.size()) - 1; i >= 0; --i)
        if (ex[static_cast<size_t>(i)].kind == "ab" && ex[static_cast<size_t>(i)].samples.empty())
            return i;
    return document()->currentExperimentIndex();
}

void AbPage::createExperiment()
{
    const std::string workload = m_workload->currentText().toStdString();
    // New A/B keeps what the page showed: the same workload keeps its varied parameter (the new
    // arms are equal, so nothing else would say which one the page was varying).
    const int shownIndex = experimentIndex();
    if (shownIndex < 0 || document()->study().experiments[static_cast<size_t>(shownIndex)].workload != workload)
        m_varied.clear();
    // Its controls are measured for the device the engine would run it on.
    Experiment made = makeAbExperiment(document()->study(), workload);
    const DeviceIdentity device = m_probe ? m_probe->runningDevice(made) : DeviceIdentity {};
    applyMeasuredControls(made, device.empty() ? nullptr : &device);
    document()->edit(tr("New A/B"), [made](Study& s) { s.experiments.push_back(made); });
}

void AbPage::cellEdited(int row, int column)
{
    if (m_filling || column == 0)
        return;
    const int i = experimentIndex();
    if (i < 0)
        return;
    const std::string name = m_arms->item(row, 0)->text().toStdString();
    const nlohmann::json value = parseCellValue(m_arms->item(row, column)->text().trimmed().toStdString());
    const std::string varied = m_varied.toStdString();
    const DeviceIdentity device
        = m_probe ? m_probe->runningDevice(document()->study().experiments[static_cast<size_t>(i)]) : DeviceIdentity {};
    m_refusal.clear();
    if (column == 2) {
        Experiment trial = document()->study().experiments[static_cast<size_t>(i)];
        if (auto refused = setTreatmentValue(trial, varied, name, value)) {
            m_refusal = qs(*refused);
            refresh();
            return;
        }
    }
    document()->edit(tr("Set %1").arg(qs(name)), [=](Study& s) {
        Experiment& e = s.experiments[static_cast<size_t>(i)];
        if (column == 2)
            setTreatmentValue(e, varied, name, value);
        else if (name == varied)
            setArmValue(e, 0, name, value);
        else
            setShared(e, name, value);
        applyMeasuredControls(e, device.empty() ? nullptr : &device);
    });
}

void AbPage::variedChosen()
{
    const int i = experimentIndex();
    const QString next = m_variedBox->currentText();
    if (i < 0 || next == m_varied)
        return;
    const std::string oldName = m_varied.toStdString(), newName = next.toStdString();
    m_varied = next;
    document()->edit(
        tr("Vary %1").arg(next), [=](Study& s) { setVaried(s.experiments[static_cast<size_t>(i)], oldName, newName); });
}

void AbPage::showCommandDiff(const Experiment& e)
{
    // What differs between the two commands, as the engine's arm diff sees it (study/arm_diff.h).
    const AbArms arms = ab_arms(e);
    const ArmDiff diff = arms ? diff_arm_pair(*arms.baseline, *arms.treatment) : ArmDiff {};
    const auto label = [](const std::string& name) {
        if (name == "command")
            return tr("command line");
        if (name == "cwd")
            return tr("working directory");
        if (name.rfind("env.", 0) == 0)
            return tr("environment %1").arg(qs(name.substr(4)));
        return qs(name);
    };
    const auto value = [](const nlohmann::json& v) { return v.is_null() ? tr("(not set)") : cellText(v); };
    QStringList lines;
    if (diff.differences.empty())
        lines << tr("Arm diff (engine): the two commands are identical: it runs as an A/A (the same code twice); "
                    "change the one thing the A/B tests.");
    else
        lines << tr("Arm diff (engine): the commands differ in %n setting(s):", nullptr,
            static_cast<int>(diff.differences.size()));
    for (const auto& d : diff.differences)
        lines << tr("  %1: %2  →  %3").arg(label(d.name), value(d.baseline), value(d.treatment));
    if (!m_refusal.isEmpty())
        lines << m_refusal;
    m_diff->setText(lines.join(u'\n'));
    m_diff->setStyleSheet(!diff.differences.empty() && m_refusal.isEmpty() ? QString() : u"color: #c62828;"_s);
}

QString AbPage::runBlockedReason() const
{
    const int i = experimentIndex();
    const Experiment* e = i < 0 ? nullptr : &document()->study().experiments[static_cast<size_t>(i)];
    const auto reason = run_blocked(document()->study(), e, e ? experimentDefaults(*e) : nlohmann::json::object());
    return reason ? qs(*reason) : QString();
}

void AbPage::updateRunButtons()
{
    const bool running = m_run && m_run->isRunning();
    // Asked on every progress event while a run goes: the gates (now the arms' whole shape rule,
    // which walks every kept sample) only matter while Start could be pressed, as the window asks them.
    const QString blocked = running ? QString() : runBlockedReason();
    m_start->setEnabled(!running && blocked.isEmpty());
    m_start->setToolTip(
        blocked.isEmpty() ? tr("Save the study and run the A/B with kwb (Ctrl+R)") : tr("Locked: %1").arg(blocked));
    m_stopButton->setEnabled(running);
    QString text = running ? m_run->progressText() : QString();
    if (text.isEmpty())
        text = blocked.isEmpty() ? tr("Ready to run.") : tr("Locked: %1").arg(blocked);
    m_progress->setText(text);
}

void AbPage::refresh()
{
    m_filling = true;
    const int i = experimentIndex();
    const Experiment* e = i < 0 ? nullptr : &document()->study().experiments[static_cast<size_t>(i)];
    m_create->setVisible(!e || !e->samples.empty());
    for (QWidget* w : std::initializer_list<QWidget*> {m_backend, m_variedBox, m_arms, m_controls, m_runs, m_warmup,
             m_order, m_stop, m_duration, m_profile, m_guards, m_aaArm})
        w->setEnabled(e && e->samples.empty());
    m_aaArm->setChecked(e && aa_arm(*e));
    m_workload->setEnabled(!e || e->samples.empty());
    m_arms->setRowCount(0);
    m_controls->setRowCount(0);
    const bool commandArms = e && e->workload == command::kCommandWorkload;
    m_commandArms->setVisible(commandArms);
    // Command arms have no parameters, no varied one and no backend choice (they run where kwb
    // runs): the editor above and the commands' diff take the parameter table's place.
    for (QWidget* w : std::initializer_list<QWidget*> {
             m_arms, m_armsLabel, m_variedBox, m_variedLabel, m_workload, m_workloadLabel, m_backend, m_backendLabel})
        w->setVisible(!commandArms);
    m_commandArms->showExperiment(commandArms ? i : -1);
    // A worker runs on the device it described, not on one the page picks.
    const bool workerArms = e && e->workload == worker::kWorkerWorkload;
    m_workerArms->setVisible(workerArms);
    m_workerArms->showExperiment(workerArms ? i : -1);
    if (workerArms)
        for (QWidget* w : std::initializer_list<QWidget*> {m_backend, m_backendLabel})
            w->setVisible(false);
    m_commitArms->showExperiment(document()->study(), document()->filePath(), e);
    if (!e) {
        setValue(m_experiment, tr("No A/B yet: choose a workload and press New A/B."));
        setValue(m_diff, QString());
        m_filling = false;
        updateRunButtons();
        return;
    }
    setValue(m_experiment,
        tr("%1 · metric %2 · status %3%4%5")
            .arg(qs(e->id), qs(e->metric), qs(std::string(to_string(e->status))),
                e->samples.empty() ? QString() : tr(" · it has samples: edit a New A/B instead"),
                e->error.empty() ? QString() : tr(" · error: %1").arg(qs(e->error))));
    // A workload the list does not offer (a worker arm's, written by kwb new --worker) is shown as
    // what it is, not as the list's first entry.
    m_workload->setPlaceholderText(qs(e->workload));
    m_workload->setCurrentIndex(m_workload->findText(qs(e->workload))); // -1: the placeholder
    m_backend->setCurrentText(qs(e->backend));

    const nlohmann::json defaults = experimentDefaults(*e);
    ArmDiff diff;
    if (e->arms.size() >= 2)
        diff = diff_arm_pair(e->arms[0], e->arms[1], defaults); // parameters, commands or workers
    if (diff.differences.size() == 1)
        m_varied = qs(diff.differences.front().name);

    // Rows: every parameter of the workload, then any the arms carry beyond it.
    QStringList names;
    QHash<QString, QString> descriptions;
    if (const WorkloadDescription* w = findWorkload(e->workload))
        for (const auto& p : workloadParams(*w, e->backend)) {
            names << qs(p.name);
            descriptions.insert(qs(p.name), qs(p.description));
        }
    for (const auto& arm : e->arms)
        for (const auto& [k, v] : arm.params.items())
            if (!names.contains(qs(k)))
                names << qs(k);
    if ((m_varied.isEmpty() || !names.contains(m_varied)) && !names.isEmpty())
        m_varied = names.first();
    m_variedBox->clear();
    m_variedBox->addItems(names);
    m_variedBox->setCurrentText(m_varied);

    m_arms->setRowCount(static_cast<int>(names.size()));
    for (int row = 0; row < names.size(); ++row) {
        const std::string name = names[row].toStdString();
        auto* key = new QTableWidgetItem(names[row]);
        key->setFlags(key->flags() & ~Qt::ItemIsEditable);
        key->setToolTip(descriptions.value(names[row]));
        m_arms->setItem(row, 0, key);
        for (size_t c = 0; c < 2 && c < e->arms.size(); ++c) {
            const auto& params = e->arms[c].params;
            const nlohmann::json v = params.contains(name) ? params[name] : defaults.value(name, nlohmann::json());
            auto* item = new QTableWidgetItem(cellText(v));
            item->setToolTip(
                tr("%1 of the %2 arm. %3")
                    .arg(names[row], c == 0 ? tr("baseline") : tr("treatment"), descriptions.value(names[row])));
            if (names[row] != m_varied && c == 1) {
                item->setToolTip(tr("Shared with the baseline: edit it there, or make it the varied parameter"));
                item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
            }
            m_arms->setItem(row, static_cast<int>(c) + 1, item);
        }
        if (names[row] == m_varied)
            for (int c = 0; c < m_arms->columnCount(); ++c)
                if (m_arms->item(row, c)) {
                    m_arms->item(row, c)->setBackground(kVaried);
                    m_arms->item(row, c)->setForeground(Qt::black);
                }
    }

    QStringList diffText;
    if (diff.differences.empty())
        diffText << tr("Arm diff (engine): the arms do not differ yet — set the treatment's %1.").arg(m_varied);
    else if (diff.single_variable())
        diffText << tr("Arm diff (engine): only %1 differs (%2 → %3).")
                        .arg(qs(diff.names()), cellText(diff.differences[0].baseline),
                            cellText(diff.differences[0].treatment));
    else
        diffText << tr("Arm diff (engine): %1 differ — more than one variable, the delta cannot be attributed.")
                        .arg(qs(diff.names()));
    if (!diff.one_sided.empty()) {
        QStringList names1;
        for (const auto& n : diff.one_sided)
            names1 << qs(n);
        diffText << tr("Set on one arm only (a forced setting): %1").arg(names1.join(u", "_s));
    }
    if (!m_refusal.isEmpty())
        diffText << m_refusal;
    m_diff->setText(diffText.join(u'\n'));
    m_diff->setStyleSheet(diff.single_variable() && m_refusal.isEmpty() ? QString() : u"color: #c62828;"_s);
    if (commandArms)
        showCommandDiff(*e);

    fillControls(*e, defaults);
    fillPlan(*e);
    m_filling = false;
    updateRunButtons();
}

} // namespace kwb::gui
