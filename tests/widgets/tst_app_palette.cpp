// SPDX-License-Identifier: GPL-3.0-or-later
// The dark palette keeps every check box visible: an unchecked box in a table row (the tradeoff
// axes, the matched controls) used to draw in the row's own colour and vanish.
#include "style/app_palette.h"

#include <QApplication>
#include <QImage>
#include <QStyle>
#include <QStyleOptionViewItem>
#include <QTableWidget>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

// The largest difference in grey level between the row's background and any pixel of `rect`.
int contrast(const QImage& image, const QRect& rect, QColor background)
{
    int most = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            most = std::max(most, std::abs(qGray(image.pixel(x, y)) - qGray(background.rgb())));
    return most;
}

} // namespace

class TestAppPalette : public QObject {
    Q_OBJECT
private slots:
    void onlyLightAndDarkAreNames()
    {
        QVERIFY(!kwb::gui::applyPalette(u"blue"_s));
        QVERIFY(!kwb::gui::applyPalette(QString()));
    }

    void uncheckedBoxesShowInDarkTableRows()
    {
        QVERIFY(kwb::gui::applyPalette(u"dark"_s));
        QCOMPARE(QApplication::palette().color(QPalette::Base), kwb::gui::darkPalette().color(QPalette::Base));
        for (const bool enabled : {true, false}) {
            QTableWidget table(2, 1);
            table.resize(300, 120);
            for (int row = 0; row < 2; ++row) {
                auto* item = new QTableWidgetItem(u"none"_s);
                item->setFlags(Qt::ItemIsUserCheckable | (enabled ? Qt::ItemIsEnabled : Qt::NoItemFlags));
                item->setCheckState(Qt::Unchecked);
                table.setItem(row, 0, item);
            }
            table.show();
            QVERIFY(QTest::qWaitForWindowExposed(&table));
            const QImage image = table.viewport()->grab().toImage();
            QStyleOptionViewItem option;
            option.initFrom(table.viewport());
            option.rect = table.visualItemRect(table.item(0, 0));
            option.features |= QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDisplay;
            option.text = u"none"_s;
            const QRect box = table.style()->subElementRect(QStyle::SE_ItemViewItemCheckIndicator, &option, &table);
            QVERIFY(!box.isEmpty());
            const QColor row = image.pixelColor(option.rect.right() - 4, option.rect.center().y());
            const int seen = contrast(image, box, row);
            QVERIFY2(
                seen >= (enabled ? 80 : 40), qPrintable(u"the box differs from its row by %1 grey levels"_s.arg(seen)));
        }
    }
};

QTEST_MAIN(TestAppPalette)
#include "tst_app_palette.moc"
