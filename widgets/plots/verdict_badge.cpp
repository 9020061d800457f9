// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/verdict_badge.h"

#include "plots/plot_style.h"

namespace kwb::gui {

using namespace Qt::StringLiterals;

VerdictBadge::VerdictBadge(QWidget* parent)
    : QLabel(parent)
{
    setAlignment(Qt::AlignCenter);
    setMinimumSize(220, 64);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 1.9);
    f.setBold(true);
    setFont(f);
    setVerdict({});
}

void VerdictBadge::setVerdict(const QString& word)
{
    m_word = word;
    setText(word.isEmpty() ? tr("NO VERDICT") : word);
    const QColor c = word.isEmpty() ? QColor(176, 176, 176) : verdictColor(word);
    setStyleSheet(QStringLiteral("QLabel { background: %1; color: white; border-radius: 8px; padding: 8px 20px; }")
                      .arg(c.name()));
}

} // namespace kwb::gui
