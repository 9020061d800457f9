// SPDX-License-Identifier: GPL-3.0-or-later
#include "style/app_palette.h"

#include <QApplication>
#include <QPainter>
#include <QPalette>
#include <QProxyStyle>
#include <QStyleFactory>
#include <QStyleOption>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {

// Fusion outlines a check box in the window colour darkened, and fills it with the base colour.
// On a dark palette's table rows (which are the base colour) an unchecked box then vanishes: the
// tradeoff axes and the matched controls showed no box at all. This draws a visible border over it.
class DarkFusionStyle : public QProxyStyle {
public:
    DarkFusionStyle()
        : QProxyStyle(QStyleFactory::create(u"Fusion"_s))
    {
    }

    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
        const QWidget* widget = nullptr) const override
    {
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        if (element != PE_IndicatorCheckBox)
            return;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->translate(0.5, 0.5);
        painter->setBrush(Qt::NoBrush);
        const bool enabled = option->state & State_Enabled;
        painter->setPen(QPen(enabled ? QColor(160, 160, 165) : QColor(105, 105, 110), 1));
        painter->drawRect(option->rect.adjusted(0, 0, -1, -1));
        painter->restore();
    }
};

} // namespace

QPalette darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
    dark.setColor(QPalette::Base, QColor(30, 30, 32));
    dark.setColor(QPalette::AlternateBase, QColor(52, 52, 56));
    dark.setColor(QPalette::Text, QColor(220, 220, 220));
    dark.setColor(QPalette::Button, QColor(55, 55, 60));
    dark.setColor(QPalette::ButtonText, QColor(220, 220, 220));
    dark.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    dark.setColor(QPalette::Highlight, QColor(42, 130, 218));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
    dark.setColor(QPalette::ToolTipText, QColor(220, 220, 220));
    dark.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
    dark.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
    dark.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 120));
    return dark;
}

bool applyPalette(const QString& name)
{
    if (name == "light"_L1) {
        QApplication::setStyle(u"Fusion"_s);
        QApplication::setPalette(QApplication::style()->standardPalette());
        return true;
    }
    if (name == "dark"_L1) {
        QApplication::setStyle(new DarkFusionStyle); // the application owns it
        QApplication::setPalette(darkPalette());
        return true;
    }
    return false;
}

} // namespace kwb::gui
