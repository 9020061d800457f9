// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/commit_arms_panel.h"

#include "hardware/kernel_occupancy.h"
#include "models/json_convert.h"
#include "models/kernel_table_model.h"
#include "pages/build_log_dialog.h"
#include "study/arm_roles.h"
#include "study/git_arm.h"
#include "study/git_cache_paths.h"
#include "study/kernel_inventory.h"
#include "verdict/bisect_progress.h"
#include "verdict/kernel_code.h"

#include <QColor>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

QTableWidget* plainTable(QWidget* parent, const QStringList& headers, const QString& name)
{
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setObjectName(name);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells)
{
    for (int c = 0; c < cells.size(); ++c)
        t->setItem(row, c, new QTableWidgetItem(cells[c]));
}

QWidget* tabOf(QWidget* parent, std::initializer_list<QWidget*> widgets)
{
    auto* tab = new QWidget(parent);
    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(4, 4, 4, 4);
    for (QWidget* w : widgets)
        layout->addWidget(w, qobject_cast<QLabel*>(w) ? 0 : 1);
    return tab;
}

QString sha12(const std::string& sha)
{
    return qs(sha.substr(0, 12));
}

} // namespace

CommitArmsPanel::CommitArmsPanel(QWidget* parent)
    : QWidget(parent)
    , m_kernelModel(new KernelTableModel(this))
{
    setObjectName(u"commitArmsPanel"_s);
    m_commits = new QLabel(this);
    m_commits->setObjectName(u"commitArmsCommits"_s);
    m_commits->setWordWrap(true);
    m_commits->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_kernelView = new QTableView(this);
    m_kernelView->setObjectName(u"kernelsTable"_s);
    m_kernelView->setModel(m_kernelModel);
    m_kernelView->verticalHeader()->hide();
    m_kernelView->horizontalHeader()->setStretchLastSection(true);
    m_kernelView->setToolTip(tr("Every CUDA kernel of both arms' builds, as kwb run read them (cuobjdump): kernels "
                                "that differ in code or resources come first, marked ≠"));
    m_kernelsNote = new QLabel(this);
    m_kernelsNote->setObjectName(u"kernelsNote"_s);
    m_kernelsNote->setWordWrap(true);
    m_kernelsTab = tabOf(this, {m_kernelView, m_kernelsNote});

    m_builds
        = plainTable(this, {tr("arms"), tr("commit"), tr("ref"), tr("build command"), tr("log")}, u"buildsTable"_s);
    m_builds->setToolTip(tr("Each commit's build in the per-repository cache; double-click a row for its log"));
    auto* viewLog = new QPushButton(tr("View log…"), this);
    viewLog->setObjectName(u"viewBuildLog"_s);
    connect(viewLog, &QPushButton::clicked, this, [this] { openBuildLog(m_builds->currentRow()); });
    connect(m_builds, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { openBuildLog(row); });
    m_buildsTab = tabOf(this, {m_builds, viewLog});

    m_bisect = plainTable(
        this, {tr("step"), tr("tested commit"), tr("call vs the good commit"), tr("why")}, u"bisectTable"_s);
    m_bisectRange = new QLabel(this);
    m_bisectRange->setObjectName(u"bisectRange"_s);
    m_bisectRange->setWordWrap(true);
    m_bisectRange->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_bisectTab = tabOf(this, {m_bisect, m_bisectRange});

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(u"commitArmsTabs"_s);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_commits);
    layout->addWidget(m_tabs, 1);
    hide();
}

QString CommitArmsPanel::commitsText() const
{
    return m_commits->isHidden() ? QString() : m_commits->text();
}

QString CommitArmsPanel::kernelsNote() const
{
    return m_kernelsNote->text();
}

QString CommitArmsPanel::bisectRangeText() const
{
    return m_bisectRange->text();
}

void CommitArmsPanel::showExperiment(const Study& study, const QString& studyPath, const Experiment* e)
{
    m_tabs->clear();
    const bool commits = e && is_git_experiment(*e);
    m_commits->setVisible(commits);
    if (commits) {
        const AbArms ab = ab_arms(*e);
        const GitArm b = *git_arm_of(*ab.baseline), t = *git_arm_of(*ab.treatment);
        m_commits->setText(tr("Two commits of %1: baseline %2, treatment %3 · built by `%4` · %5")
                               .arg(qs(b.repo), qs(short_commit(b)), qs(short_commit(t)), qs(b.build),
                                   b.toolchain.cuda.empty() ? qs(b.toolchain.compiler) : qs(b.toolchain.cuda)));
        showKernels(study, studyPath, *e);
        showBuilds(*e);
        m_tabs->addTab(m_kernelsTab, tr("Kernels (%1)").arg(m_kernelModel->rowCount()));
        m_tabs->addTab(m_buildsTab, tr("Builds (%1)").arg(m_builds->rowCount()));
    } else {
        m_kernelModel->clear();
        m_builds->setRowCount(0);
    }
    if (showBisect(study))
        m_tabs->addTab(m_bisectTab, tr("Bisect path (%1 steps)").arg(m_bisect->rowCount()));
    // A page not in the tabs is still this panel's child: hidden, it paints nowhere.
    for (QWidget* page : {m_kernelsTab, m_buildsTab, m_bisectTab})
        if (m_tabs->indexOf(page) < 0)
            page->hide();
    setVisible(m_tabs->count() > 0);
}

void CommitArmsPanel::showKernels(const Study& study, const QString& studyPath, const Experiment& e)
{
    QStringList notes;
    KernelInventories all;
    if (studyPath.isEmpty()) {
        notes << tr("No kernels read: the study is not saved (kwb run keeps them beside it, in STUDY.kernels.json).");
    } else {
        try {
            all = load_kernel_inventories(studyPath.toStdString());
        } catch (const std::exception& x) {
            notes << tr("No kernels read: %1").arg(QString::fromUtf8(x.what()));
        }
    }
    const AbArms ab = ab_arms(e);
    const auto found = all.find(e.id);
    const auto inventory = [&](const Arm* arm) {
        if (found == all.end())
            return KernelInventory {};
        const auto it = found->second.find(arm->name);
        return it == found->second.end() ? KernelInventory {} : it->second;
    };
    const GpuPart* part = study_gpu_part(study.hardware.device_in_use, study.hardware.devices);
    m_kernelModel->setInventories(inventory(ab.baseline), inventory(ab.treatment), part);
    const KernelDiff& diff = m_kernelModel->diff();
    if (!diff.any_kernels) {
        if (notes.isEmpty())
            notes << (found == all.end()
                    ? tr("No kernels read: kwb run reads them when it builds the commits (%1 "
                         "has none for %2 yet).")
                          .arg(QFileInfo(qs(kernels_path(studyPath.toStdString()).string())).fileName(), qs(e.id))
                    : tr("No kernels read."));
    } else {
        const int differing = static_cast<int>(
            std::count_if(diff.rows.begin(), diff.rows.end(), [](const KernelDiffRow& r) { return r.differs(); }));
        notes << tr("%n kernel(s), %1 differing", nullptr, static_cast<int>(diff.rows.size())).arg(differing)
                + (part ? tr(" · occupancy on %1").arg(qs(part->name))
                        : tr(" · occupancy: the study's device is not in the GPU catalogue"));
    }
    if (const auto same = identical_sass_reason(diff))
        notes << tr("Verdict reason: %1.").arg(qs(*same));
    if (const auto resources = resource_diff_reason(diff, part))
        notes << tr("Verdict reason: %1.").arg(qs(*resources));
    for (const auto& n : diff.notes)
        notes << qs(n);
    m_kernelsNote->setText(notes.join(u'\n'));
    m_kernelView->resizeColumnsToContents();
}

void CommitArmsPanel::showBuilds(const Experiment& e)
{
    const auto builds = git::commit_builds(e);
    m_builds->setRowCount(static_cast<int>(builds.size()));
    for (int row = 0; row < m_builds->rowCount(); ++row) {
        const auto& b = builds[static_cast<size_t>(row)];
        QStringList arms;
        for (const auto& a : b.arms)
            arms << qs(a);
        const QString log = qs(b.paths.log.string());
        setRow(m_builds, row,
            {arms.join(u", "_s), sha12(b.git.sha), qs(b.git.ref), qs(b.git.build),
                QFileInfo::exists(log) ? log : tr("%1 (not built here)").arg(log)});
        m_builds->item(row, 4)->setData(Qt::UserRole, log);
        m_builds->item(row, 1)->setToolTip(qs(b.git.sha));
    }
    if (m_builds->rowCount() > 0)
        m_builds->setCurrentCell(0, 0);
    m_builds->resizeColumnsToContents();
}

BuildLogDialog* CommitArmsPanel::openBuildLog(int row)
{
    if (row < 0 || row >= m_builds->rowCount())
        return nullptr;
    auto* dialog = new BuildLogDialog(tr("%1 (%2)").arg(m_builds->item(row, 1)->text(), m_builds->item(row, 2)->text()),
        m_builds->item(row, 4)->data(Qt::UserRole).toString(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

bool CommitArmsPanel::showBisect(const Study& study)
{
    const BisectProgress p = bisect_progress(study);
    m_bisect->setRowCount(static_cast<int>(p.steps.size()));
    for (int row = 0; row < m_bisect->rowCount(); ++row) {
        const auto& s = p.steps[static_cast<size_t>(row)];
        setRow(m_bisect, row,
            {qs(s.experiment), sha12(s.candidate_sha), qs(std::string(to_string(s.call.outcome))), qs(s.call.reason)});
        if (s.call.outcome == StepOutcome::Bad)
            for (int c = 0; c < m_bisect->columnCount(); ++c) {
                m_bisect->item(row, c)->setBackground(QColor(255, 205, 210));
                m_bisect->item(row, c)->setForeground(Qt::black);
            }
    }
    m_bisect->resizeColumnsToContents();
    if (p.steps.empty()) {
        m_bisectRange->clear();
        return false;
    }
    QString text = tr("Against the good commit %1. ").arg(sha12(p.good_sha));
    const QString low = sha12(p.range_low);
    const QString high = !p.range_high.empty() ? sha12(p.range_high)
        : !p.bad_sha.empty()                   ? sha12(p.bad_sha)
                                               : tr("the bad ref");
    if (p.stopped_inconclusive)
        text += tr("Stopped: INCONCLUSIVE twice at %1. Range left: after %2 up to %3.")
                    .arg(sha12(p.steps.back().candidate_sha), low, high);
    else if (!p.first_bad.empty())
        text += tr("First bad commit: %1. The search over %n commit(s) ended after %2 step(s); the commit "
                   "before it, %3, was called good.",
            nullptr, p.commits_in_range)
                    .arg(sha12(p.first_bad))
                    .arg(p.steps.size())
                    .arg(low);
    else if (p.commits_left > 0)
        text += tr("%n commit(s) left to test, after %1 up to %2 (the newest step called bad, else the bad commit).",
            nullptr, p.commits_left)
                    .arg(low, high);
    else if (p.range_high.empty())
        text += tr("No tested commit is a regression yet: the first bad commit is after %1, up to the bad ref (this "
                   "study, written before kwb bisect recorded its search, does not say more).")
                    .arg(low);
    else
        text += tr("First bad commit so far: %1 (the newest step called bad); the range left is after %2 up to it "
                   "(this study, written before kwb bisect recorded its search, does not say whether it ended).")
                    .arg(sha12(p.range_high), low);
    m_bisectRange->setText(text);
    return true;
}

} // namespace kwb::gui
