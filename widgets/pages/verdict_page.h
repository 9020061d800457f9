// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/phase_page.h"
#include "verdict/metric_diff.h"

#include <optional>

class QPushButton;
class QTableWidget;

namespace kwb {
struct Experiment;
}

namespace kwb::gui {

class CommitArmsPanel;
class SigmaChart;
class VerdictStoryView;
class RooflinePlot;

// Phase 8: the final verdict as one story (VerdictStoryView: one badge, the deciding reason, what
// would change it, the next step, and the sample verdict as a secondary line), every reason of
// both verdicts, the prediction check and the sigma chart. Both verdicts are read from the study
// as the engine wrote them.
class VerdictPage : public PhasePage {
    Q_OBJECT
public:
    explicit VerdictPage(StudyDocument* document, QWidget* parent = nullptr);
    void refresh() override;

    QString finalVerdict() const;
    QString sampleVerdict() const; // the numbers alone: the sample verdict's word
    VerdictStoryView* story() const { return m_story; }
    CommitArmsPanel* commitArmsPanel() const { return m_commitArms; }
    QString gatesText() const;
    // The real A/A line ("A/A at n = 10: NOISE, delta 0.3% [-0.4, 1]"), or empty when the
    // experiment has no A/A arm.
    QString aaText() const;
    // The A/A history of the experiment's device (run/aa_history.h, read from the XDG state
    // directory): "A/A history on DEVICE: k false alarms in n A/A runs (x%, 95% CI lo-hi%)", or
    // empty while no experiment of the study has run on a device.
    QString aaHistoryText() const;

signals:
    // Run on a finished study: a new attempt of the same A/B, kept beside the earlier ones.
    void newAttemptRequested();

private:
    void ledgerEdited(int row, int column);
    // Fills the metric diff table and returns the diff (the roofline takes its lane means).
    std::optional<MetricDiff> refreshMetricDiff(const Experiment* e, double noise_k);

    bool m_filling = false;
    QLabel* m_gates;
    QTableWidget* m_ledger;
    QPushButton* m_newAttempt;
    VerdictStoryView* m_story;
    QString m_sampleWord;
    QLabel* m_finalReasons;
    QLabel* m_sampleReasons;
    QLabel* m_evidence;
    QLabel* m_prediction;
    QLabel* m_profile;
    QLabel* m_aa;
    QLabel* m_aaHistory;
    SigmaChart* m_sigma;
    RooflinePlot* m_roofline;
    QLabel* m_metricDiffSummary;
    QTableWidget* m_metricDiff;
    CommitArmsPanel* m_commitArms;
};

} // namespace kwb::gui
