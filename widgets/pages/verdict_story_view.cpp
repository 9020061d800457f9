// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/verdict_story_view.h"

#include "models/json_convert.h"
#include "plots/verdict_badge.h"
#include "study/study.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
QLabel* storyLabel(QWidget* parent, const QString& name)
{
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QString word(VerdictWord w)
{
    return QString::fromLatin1(to_string(w));
}
} // namespace

VerdictStoryView::VerdictStoryView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(u"verdictStory"_s);
    // As tall as its lines: extra height goes to the pages' plots, not to blank space under it.
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    m_badge = new VerdictBadge(this);
    m_badge->setObjectName(u"storyBadge"_s);
    m_badge->setMinimumSize(180, 48);
    m_badge->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    QFont f = m_badge->font();
    f.setPointSizeF(f.pointSizeF() * 0.7);
    m_badge->setFont(f);
    // The badge keeps its size at the top; the text column takes the rest of the width (an
    // aligned item beside word-wrapped labels left them a few pixels wide on a page without a
    // scroll area).
    auto* badgeColumn = new QVBoxLayout;
    badgeColumn->addWidget(m_badge);
    badgeColumn->addStretch(1);
    row->addLayout(badgeColumn);

    auto* textBox = new QWidget(this);
    textBox->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* texts = new QVBoxLayout(textBox);
    texts->setContentsMargins(0, 0, 0, 0);
    m_reason = storyLabel(this, u"storyReason"_s);
    QFont bold = m_reason->font();
    bold.setBold(true);
    m_reason->setFont(bold);
    m_change = storyLabel(this, u"storyChange"_s);
    auto* nextRow = new QHBoxLayout;
    m_nextText = storyLabel(this, u"storyNextStep"_s);
    m_next = new QPushButton(this);
    m_next->setObjectName(u"storyNextButton"_s);
    m_next->setToolTip(tr("The next step the engine names for this INCONCLUSIVE (docs/verdict.md, \"The next step\")"));
    nextRow->addWidget(m_nextText, 1);
    nextRow->addWidget(m_next, 0, Qt::AlignTop);
    m_numbersAlone = storyLabel(this, u"storyNumbersAlone"_s);
    m_numbersAlone->setForegroundRole(QPalette::PlaceholderText); // secondary: muted, readable in both palettes
    m_numbersAlone->setToolTip(tr("The sample verdict: what kwb verdict says of the same samples and profile, "
                                  "before the study's rules (tradeoff, guards, GPU sharing, speed of light)"));
    texts->addWidget(m_reason);
    texts->addWidget(m_change);
    texts->addLayout(nextRow);
    texts->addWidget(m_numbersAlone);
    texts->addStretch(1);
    row->addWidget(textBox, 1);
    connect(m_next, &QPushButton::clicked, this, &VerdictStoryView::pressNext);
    setExperiment(nullptr);
}

void VerdictStoryView::setExperiment(const Experiment* e)
{
    const SampleVerdict* sample = e && e->verdict ? &*e->verdict : nullptr;
    const FinalVerdict* final = e && e->final_verdict ? &*e->final_verdict : nullptr;
    m_story.reset();
    if (final && sample)
        m_story = verdict_story(*final, *sample);
    if (m_story) {
        m_badge->setVerdict(word(m_story->word));
        m_reason->setText(qs(m_story->reason));
        m_change->setText(
            m_story->change.empty() ? QString() : tr("What would change it: %1").arg(qs(m_story->change)));
        m_nextText->setText(m_story->next.kind == NextStepKind::None || m_story->next.text.empty()
                ? QString()
                : tr("Next step: %1").arg(qs(m_story->next.text)));
        m_next->setText(qs(m_story->next.action));
        m_numbersAlone->setText(qs(m_story->numbers_alone));
    } else {
        // A run in progress has a sample verdict only: the study's rules judge it when it ends.
        m_badge->setVerdict(QString());
        m_reason->setText(!e ? tr("No experiment yet.")
                : sample     ? tr("No final verdict yet: the study's rules judge it when the run ends.")
                             : tr("No verdict yet: run the experiment to the end."));
        m_change->clear();
        m_nextText->clear();
        m_next->setText(QString());
        m_numbersAlone->setText(sample ? tr("the numbers so far: %1").arg(word(sample->word)) : QString());
    }
    m_change->setVisible(!m_change->text().isEmpty());
    m_nextText->setVisible(!m_nextText->text().isEmpty());
    m_next->setVisible(!m_next->text().isEmpty());
    m_numbersAlone->setVisible(!m_numbersAlone->text().isEmpty());
}

QString VerdictStoryView::reasonText() const
{
    return m_reason->text();
}

QString VerdictStoryView::changeText() const
{
    return m_change->text();
}

QString VerdictStoryView::nextStepText() const
{
    return m_nextText->text();
}

QString VerdictStoryView::numbersAloneText() const
{
    return m_numbersAlone->text();
}

void VerdictStoryView::pressNext()
{
    if (!m_story)
        return;
    const NextStep& next = m_story->next;
    switch (next.kind) {
    case NextStepKind::AddRuns:
        if (next.runs_per_arm)
            emit addRunsRequested(*next.runs_per_arm);
        return;
    case NextStepKind::QuieterMachine:
        emit newAttemptRequested();
        return;
    case NextStepKind::None:
    case NextStepKind::NoRunCount:
        return;
    default:
        if (next.phase >= 1 && next.phase <= 8)
            emit phaseRequested(next.phase);
        return;
    }
}

} // namespace kwb::gui
