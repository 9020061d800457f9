// SPDX-License-Identifier: GPL-3.0-or-later
// The reports' own font (report/report_fonts.h) on a machine where fontconfig knows no font: before
// anything starts fontconfig, FONTCONFIG_FILE names a configuration without a font folder, as on
// the H200 server (no configuration, and fontconfig's built-in fallback lists /usr/share/fonts,
// which holds none there), where every chart label came out empty. Ink inside a label's box (and none where
// nothing is drawn) and an embedded DejaVu face in the PDF show the text is there; SVG text nodes
// alone would prove nothing (librsvg and cairo both go through fontconfig).
#include "report/render.h"
#include "report/report_fonts.h"
#include "report/report_model.h"

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <string>

using namespace kwb;
using namespace Qt::StringLiterals;

namespace {

// Dark pixels (any channel under 128, on white) inside [x0, x1) x [y0, y1).
int ink(const QImage& image, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            const QColor c = image.pixelColor(x, y);
            n += (c.alpha() > 128 && (c.red() < 128 || c.green() < 128 || c.blue() < 128)) ? 1 : 0;
        }
    return n;
}

} // namespace

class TestReportFonts : public QObject {
    Q_OBJECT
    QTemporaryDir config_;
private slots:
    void initTestCase()
    {
        QVERIFY(report::raster_available()); // registered only where the build has PDF and PNG
        QVERIFY(config_.isValid());
        const QString file = config_.filePath(u"fonts.conf"_s);
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            "<?xml version=\"1.0\"?>\n<fontconfig><cachedir>" + config_.path().toUtf8() + "</cachedir></fontconfig>\n");
        f.close();
        ::setenv("FONTCONFIG_FILE", qPrintable(file), 1);
        ::unsetenv("FONTCONFIG_PATH");
    }

    // The condition reproduced: fontconfig knows no DejaVu face, and a folder without the faces
    // cannot give one (what the charts would have been drawn with: nothing).
    void withoutConfigurationThereIsNoFace()
    {
        const ReportFonts none = setup_report_fonts("/nonexistent/kwb-test/fonts");
        QVERIFY(!none.system_had_them);
        QVERIFY(none.shipped_dir.empty());
        QVERIFY(none.problem.find("no DejaVu Sans face") != std::string::npos);
    }

    void shippedFacesGiveTheLabelsInk()
    {
        const ReportFonts& fonts = ensure_report_fonts();
        QVERIFY2(fonts.problem.empty(), fonts.problem.c_str());
        QVERIFY(!fonts.system_had_them);
        QVERIFY(!fonts.shipped_dir.empty());
        const std::string svg = R"(<svg xmlns="http://www.w3.org/2000/svg" width="240" height="80">)"
                                R"(<rect width="240" height="80" fill="#ffffff"/>)"
                                R"(<text x="10" y="40" font-family="DejaVu Sans" font-size="24">)"
                                R"(time_ms 0.511</text></svg>)";
        const std::string png = report::svg_to_png(svg, 1.0);
        const QImage image = QImage::fromData(reinterpret_cast<const uchar*>(png.data()), int(png.size()), "PNG");
        QCOMPARE(image.size(), QSize(240, 80));
        QVERIFY2(ink(image, 10, 18, 230, 46) > 200, qPrintable(QString::number(ink(image, 10, 18, 230, 46))));
        QCOMPARE(ink(image, 0, 55, 240, 80), 0); // below the baseline: nothing drawn, no ink
    }

    void thePdfEmbedsTheFace()
    {
        const auto r = report::report_from_file(KWB_SOURCE_DIR "/resources/studies/demo.json", "");
        const std::string pdf = report::render_pdf(r);
        QVERIFY(pdf.size() > 1000);
        QVERIFY(pdf.find("DejaVuSans") != std::string::npos);
        QVERIFY(pdf.find("/FontFile2") != std::string::npos); // an embedded TrueType face
        QVERIFY(pdf.find("/Type3") == std::string::npos); // not the unnamed bitmap fallback
    }
};

QTEST_GUILESS_MAIN(TestReportFonts)
#include "tst_report_fonts.moc"
