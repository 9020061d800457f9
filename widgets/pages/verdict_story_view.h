// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "verdict/verdict_story.h"

#include <QWidget>
#include <optional>

class QLabel;
class QPushButton;

namespace kwb {
struct Experiment;
}

namespace kwb::gui {

class VerdictBadge;

// The verdict as one story (verdict/verdict_story.h): the final verdict as the one badge, beside
// it the one reason that decided it and what would change it, the next step of an INCONCLUSIVE
// as a button, and the numbers-only verdict as a secondary line. The Results and Verdict pages
// both show this view, so the two can never argue: the sentences are the engine's, none is made
// here.
class VerdictStoryView : public QWidget {
    Q_OBJECT
public:
    explicit VerdictStoryView(QWidget* parent = nullptr);

    // The experiment's verdicts as the engine wrote them; null: no experiment.
    void setExperiment(const Experiment* experiment);

    VerdictBadge* badge() const { return m_badge; }
    QPushButton* nextStepButton() const { return m_next; }
    const std::optional<VerdictStory>& story() const { return m_story; }
    QString reasonText() const;
    QString changeText() const;
    QString nextStepText() const;
    QString numbersAloneText() const;

signals:
    // The next step's button: continue the experiment to `perArm` runs per arm (kwb run --continue).
    void addRunsRequested(int perArm);
    // The next step's button: the methodology page (1-8) that fills the gap.
    void phaseRequested(int phase);
    // The next step's button: a new attempt of the same A/B (a quieter machine).
    void newAttemptRequested();

private:
    void pressNext();

    VerdictBadge* m_badge;
    QLabel* m_reason;
    QLabel* m_change;
    QLabel* m_nextText;
    QPushButton* m_next;
    QLabel* m_numbersAlone;
    std::optional<VerdictStory> m_story;
};

} // namespace kwb::gui
