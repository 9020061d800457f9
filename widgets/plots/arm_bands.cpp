// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/arm_bands.h"

#include <algorithm>

namespace kwb::gui {

using namespace Qt::StringLiterals;

ArmBands::ArmBands(QCustomPlot* plot)
    : QCPLayerable(plot, u"background"_s) // behind the grid and the lanes
{
}

void ArmBands::setColors(const QList<QColor>& colors)
{
    m_colors = colors;
}

void ArmBands::setRects(const QList<QCPAxisRect*>& rects)
{
    m_rects.clear();
    for (auto* r : rects)
        m_rects.append(r);
}

void ArmBands::append(double begin, double end, int slot)
{
    m_begin.append(begin);
    m_end.append(end);
    m_slot.append(slot);
    m_longest = std::max(m_longest, end - begin);
}

void ArmBands::clear()
{
    m_begin.clear();
    m_end.clear();
    m_slot.clear();
    m_longest = 0;
}

void ArmBands::applyDefaultAntialiasingHint(QCPPainter* painter) const
{
    painter->setAntialiasing(false); // axis-aligned rectangles: antialiasing costs and shows nothing
}

const QImage& ArmBands::row(const QCPAxis* x, int left, int width)
{
    if (m_row.width() != width)
        m_row = QImage(width, 1, QImage::Format_ARGB32_Premultiplied);
    m_row.fill(Qt::transparent);
    const QCPRange r = x->range();
    const double* b = m_begin.constData();
    const qsizetype from = std::lower_bound(b, b + m_begin.size(), r.lower - m_longest) - b;
    const qsizetype to = std::upper_bound(b, b + m_begin.size(), r.upper) - b;
    QPainter p(&m_row);
    p.setPen(Qt::NoPen);
    // Slot by slot, as one fill per slot would blend where repetitions of two slots overlap.
    for (int slot = 0; slot < m_colors.size(); ++slot) {
        p.setBrush(m_colors[slot]);
        for (qsizetype i = from; i < to; ++i) {
            if (m_slot[i] != slot)
                continue;
            const double x0 = x->coordToPixel(m_begin[i]) - left;
            const double x1 = x->coordToPixel(m_end[i]) - left;
            if (x1 > x0)
                p.drawRect(QRectF(x0, 0, x1 - x0, 1));
        }
    }
    return m_row;
}

void ArmBands::draw(QCPPainter* painter)
{
    if (m_begin.isEmpty() || m_colors.isEmpty())
        return;
    // Every strip has the same time range and, through the shared margin group, the same columns:
    // the row is made once and reused while a strip's columns match it.
    const QCPAxis* madeFor = nullptr;
    int madeLeft = 0, madeWidth = -1;
    for (const auto& rect : std::as_const(m_rects)) {
        if (!rect || rect->width() <= 0 || rect->height() <= 0)
            continue;
        const QCPAxis* x = rect->axis(QCPAxis::atBottom);
        if (!madeFor || rect->left() != madeLeft || rect->width() != madeWidth || x->range() != madeFor->range()) {
            row(x, rect->left(), rect->width());
            madeFor = x;
            madeLeft = rect->left();
            madeWidth = rect->width();
        }
        painter->drawImage(rect->rect(), m_row);
    }
}

} // namespace kwb::gui
