// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QTabWidget;
class QTableView;
class QTableWidget;

namespace kwb {
struct Experiment;
struct Study;
} // namespace kwb

namespace kwb::gui {

class BuildLogDialog;
class KernelTableModel;

// What the A/B and Verdict pages show of a study of two commits (docs/git-arms.md), in three tabs:
// - Kernels: every CUDA kernel of both arms' builds (STUDY.kernels.json, the engine's
//   diff_kernels), differing kernels first and marked, with the identical-SASS reason and the
//   resource-diff reason the verdict gives (verdict/kernel_code.h), or "no kernels read" and why;
// - Builds: each commit's build (arms, commit, ref, build command, the log the build cache keeps,
//   study/git_cache_paths.h), its log opened in a viewer;
// - Bisect path: the steps of `kwb bisect` in the study (verdict/bisect_progress.h), each tested
//   commit and its call against the good commit, and the range left.
// It holds no rule: every call above is the engine's. Hidden when the study has none of these.
class CommitArmsPanel : public QWidget {
    Q_OBJECT
public:
    explicit CommitArmsPanel(QWidget* parent = nullptr);

    // `studyPath`: where the study is saved (its kernels' file is beside it); empty: unsaved.
    void showExperiment(const Study& study, const QString& studyPath, const Experiment* experiment);

    KernelTableModel* kernelModel() const { return m_kernelModel; }
    QString commitsText() const;
    QString kernelsNote() const; // "no kernels read: ...", the SASS and resource reasons
    QTableWidget* buildsTable() const { return m_builds; }
    QTableWidget* bisectTable() const { return m_bisect; }
    QString bisectRangeText() const;
    QTabWidget* tabs() const { return m_tabs; }
    // Opens the log of the build in `row` of the builds table (a modeless dialog, returned).
    BuildLogDialog* openBuildLog(int row);

private:
    void showKernels(const Study& study, const QString& studyPath, const Experiment& e);
    void showBuilds(const Experiment& e);
    bool showBisect(const Study& study);

    QLabel* m_commits;
    QTabWidget* m_tabs;
    QWidget* m_kernelsTab;
    QTableView* m_kernelView;
    KernelTableModel* m_kernelModel;
    QLabel* m_kernelsNote;
    QWidget* m_buildsTab;
    QTableWidget* m_builds;
    QWidget* m_bisectTab;
    QTableWidget* m_bisect;
    QLabel* m_bisectRange;
};

} // namespace kwb::gui
