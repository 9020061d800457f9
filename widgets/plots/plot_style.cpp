// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/plot_style.h"

namespace kwb::gui {

using namespace Qt::StringLiterals;

QColor armColor(int index)
{
    // Colour-blind-safe pairs (Okabe-Ito): blue and vermillion first since A/B has two arms.
    static const QColor colors[] = {QColor(0, 114, 178), QColor(213, 94, 0), QColor(0, 158, 115), QColor(204, 121, 167),
        QColor(86, 180, 233), QColor(230, 159, 0)};
    return colors[static_cast<size_t>(index) % std::size(colors)];
}

QColor verdictColor(const QString& verdict)
{
    if (verdict == "LICENSE"_L1)
        return QColor(46, 125, 50);
    if (verdict == "KILL"_L1)
        return QColor(198, 40, 40);
    if (verdict == "NOISE"_L1)
        return QColor(117, 117, 117);
    if (verdict == "INCONCLUSIVE"_L1)
        return QColor(230, 145, 0);
    return QColor(84, 110, 122);
}

QString axisLabel(const QString& metric, const QString& unit)
{
    return unit.isEmpty() ? metric : metric + u" ("_s + unit + u')';
}

} // namespace kwb::gui
