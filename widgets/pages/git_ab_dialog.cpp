// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/git_ab_dialog.h"

#include "study/plan_limits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

GitAbDialog::GitAbDialog(QWidget* parent)
    : KwbNewDialog(u"gitAb"_s, parent)
{
    setObjectName(u"gitAbDialog"_s);
    setWindowTitle(tr("New A/B from two commits"));
    auto* intro = new QLabel(tr("Two commits of your repository as the arms: kwb builds each once in its own git "
                                "worktree (a cache per repository, builds reused while the commit and the build "
                                "command are unchanged), runs the bench command there, interleaved, and reads the "
                                "kernels of each build. kwb new resolves the refs now; the builds run with the A/B."),
        this);
    intro->setWordWrap(true);

    m_repo = new QLineEdit(this);
    m_repo->setObjectName(u"gitAbRepo"_s);
    m_repo->setPlaceholderText(tr("the repository's folder"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    browse->setObjectName(u"gitAbBrowse"_s);
    connect(browse, &QPushButton::clicked, this, &GitAbDialog::browse);
    auto* repoRow = new QHBoxLayout;
    repoRow->addWidget(m_repo, 1);
    repoRow->addWidget(browse);
    m_baseline = new QLineEdit(u"HEAD~1"_s, this);
    m_baseline->setObjectName(u"gitAbBaseline"_s);
    m_baseline->setToolTip(tr("A commit, branch or tag (kwb new --git-baseline); WORKTREE with Allow dirty"));
    m_treatment = new QLineEdit(u"HEAD"_s, this);
    m_treatment->setObjectName(u"gitAbTreatment"_s);
    m_treatment->setToolTip(tr("The commit under test (kwb new --git-treatment); WORKTREE: the tree as it is, "
                               "with Allow dirty"));
    m_build = new QLineEdit(this);
    m_build->setObjectName(u"gitAbBuild"_s);
    m_build->setPlaceholderText(u"cmake -B build -G Ninja && cmake --build build"_s);
    m_build->setToolTip(tr("Run once per commit by /bin/sh in its worktree; its log is kept (the Builds tab)"));
    m_kind = new QComboBox(this);
    m_kind->setObjectName(u"gitAbKind"_s);
    m_kind->addItem(tr("Bench command"), u"--cmd"_s);
    m_kind->addItem(tr("Worker command"), u"--worker"_s);
    m_kind->setToolTip(tr("A bench command runs per repetition and is read by an adapter (docs/adapters.md); a "
                          "worker is started once per arm and timed over the worker protocol"));
    m_program = new QLineEdit(this);
    m_program->setObjectName(u"gitAbProgram"_s);
    m_program->setPlaceholderText(u"./build/bench --json"_s);
    m_program->setToolTip(tr("Run in each commit's worktree after its build"));
    auto* programRow = new QHBoxLayout;
    programRow->addWidget(m_kind);
    programRow->addWidget(m_program, 1);
    m_allowDirty = new QCheckBox(tr("Allow uncommitted changes (the ref WORKTREE then names the tree as it is)"), this);
    m_allowDirty->setObjectName(u"gitAbAllowDirty"_s);
    m_runs = new QSpinBox(this);
    m_runs->setObjectName(u"gitAbRuns"_s);
    m_runs->setRange(1, 10000);
    m_runs->setValue(kDefaultRunsPerArm);
    m_runs->setToolTip(tr("Runs per arm, in whole ABBA blocks; the A/B page edits the rest of the plan"));

    auto* form = new QFormLayout;
    form->addRow(tr("Repository"), repoRow);
    form->addRow(tr("Baseline ref"), m_baseline);
    form->addRow(tr("Treatment ref"), m_treatment);
    form->addRow(tr("Build command"), m_build);
    form->addRow(tr("Run"), programRow);
    form->addRow(QString(), m_allowDirty);
    form->addRow(tr("Runs per arm"), m_runs);

    finishLayout(intro, form, tr("kwb new resolves both refs and checks the tree; Save As follows"), 680);
}

GitAbDialog::~GitAbDialog() = default;

void GitAbDialog::browse()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Repository"), m_repo->text());
    if (!dir.isEmpty())
        m_repo->setText(dir);
}

QStringList GitAbDialog::kwbArguments() const
{
    QStringList args {u"--git-baseline"_s, m_baseline->text().trimmed(), u"--git-treatment"_s,
        m_treatment->text().trimmed(), u"--build"_s, m_build->text().trimmed(), m_kind->currentData().toString(),
        m_program->text().trimmed(), u"--runs"_s, QString::number(m_runs->value())};
    if (!m_repo->text().trimmed().isEmpty())
        args << u"--repo"_s << QDir::cleanPath(m_repo->text().trimmed());
    if (m_allowDirty->isChecked())
        args << u"--allow-dirty"_s;
    return args;
}

void GitAbDialog::create()
{
    if (isCreating())
        return;
    clearError();
    // Empty fields only: what a ref, a tree or a command means is kwb new's to say.
    if (m_repo->text().trimmed().isEmpty()) {
        refuse(tr("Repository: choose the repository's folder"));
        return;
    }
    if (m_program->text().trimmed().isEmpty()) {
        refuse(tr("Run: give the %1 each commit's worktree runs").arg(m_kind->currentText().toLower()));
        return;
    }
    startKwbNew(kwbArguments());
}

} // namespace kwb::gui
