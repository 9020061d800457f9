// SPDX-License-Identifier: GPL-3.0-or-later
#include "report_export.h"

#include "models/study_document.h"
#include "report/render.h"
#include "report/sha256.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QPrintDialog>
#include <QPrinter>
#include <QRegularExpression>
#include <QTextDocument>
#include <QUrl>

namespace kwb::gui {
namespace {

using namespace Qt::StringLiterals;

ExportPathAsker& pathAsker()
{
    static ExportPathAsker asker;
    return asker;
}

PrinterAsker& printerAsker()
{
    static PrinterAsker asker;
    return asker;
}

// The report of the study as open. The provenance hashes the file as last saved.
report::Report currentReport(const StudyDocument* document)
{
    report::Provenance p;
    p.study_path = document->filePath().toStdString();
    p.command_line = "kernel-workbench: File > Export";
    QFile f(document->filePath());
    if (!document->filePath().isEmpty() && f.open(QIODevice::ReadOnly))
        p.study_sha256 = report::sha256_hex(f.readAll().toStdString());
    report::Report r = report::build_report(document->study(), std::move(p));
    report::attach_aa_history(r); // this machine's A/A history of the study's devices
    return r;
}

void exportAs(QWidget* parent, const StudyDocument* document, const QString& suffix, const QString& filter)
{
    const QFileInfo study(document->filePath());
    const QString suggested = study.path() + u'/'
        + (study.completeBaseName().isEmpty() ? u"study"_s : study.completeBaseName()) + u"-report."_s + suffix;
    const QString path = pathAsker()
        ? pathAsker()(suggested, filter)
        : QFileDialog::getSaveFileName(parent, QObject::tr("Export report"), suggested, filter);
    if (path.isEmpty())
        return;
    if (const QString error = exportReport(document, suffix, path); !error.isEmpty()) {
        if (pathAsker())
            qWarning("Export report: %s", qPrintable(error));
        else
            QMessageBox::warning(parent, QObject::tr("Export report"), error);
    }
}

void print(QWidget* parent, const StudyDocument* document)
{
    QPrinter printer(QPrinter::HighResolution);
    if (printerAsker()) {
        if (!printerAsker()(&printer))
            return;
    } else {
        QPrintDialog dialog(&printer, parent);
        if (dialog.exec() != QDialog::Accepted)
            return;
    }
    if (const QString error = printReport(document, &printer); !error.isEmpty()) {
        if (printerAsker())
            qWarning("Print report: %s", qPrintable(error));
        else
            QMessageBox::warning(parent, QObject::tr("Print report"), error);
    }
}

} // namespace

void setReportDialogs(ExportPathAsker askPath, PrinterAsker askPrinter)
{
    pathAsker() = std::move(askPath);
    printerAsker() = std::move(askPrinter);
}

QString exportReport(const StudyDocument* document, const QString& format, const QString& path)
{
    const auto f = report::parse_format(format.toStdString());
    if (!f)
        return QObject::tr("unknown report format \"%1\"").arg(format);
    try {
        report::write_report(currentReport(document), *f, path.toStdString());
    } catch (const std::exception& e) {
        return QObject::tr("%1: %2").arg(path, QString::fromStdString(e.what()));
    }
    return {};
}

// QTextDocument cannot draw inline SVG: each chart becomes an image resource, rasterised by the
// same librsvg path the Markdown report uses (or is left out, with a note, where it is absent).
QString printReport(const StudyDocument* document, QPrinter* printer)
{
    QString html;
    try {
        html = QString::fromStdString(report::render_html(currentReport(document)));
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    // The report's CSS sizes fonts in px (CSS pixels, 1/96 inch); QTextDocument reads px as device
    // pixels, which on a 1200 dpi printer is unreadably small. Points are physical: 1px = 0.75pt.
    static const QRegularExpression px(u"font-size:\\s*([0-9.]+)px"_s);
    for (auto m = px.match(html); m.hasMatch(); m = px.match(html, m.capturedStart() + 1))
        html.replace(m.capturedStart(), m.capturedLength(), u"font-size:%1pt"_s.arg(m.captured(1).toDouble() * 0.75));
    QTextDocument text;
    static const QRegularExpression svg(u"<svg[\\s\\S]*?</svg>"_s);
    int n = 0;
    for (auto m = svg.match(html); m.hasMatch(); m = svg.match(html, m.capturedStart() + 1)) {
        QString replacement
            = QObject::tr("(chart not printed: %1)").arg(QString::fromStdString(report::raster_unavailable_reason()));
        if (report::raster_available()) {
            try {
                const std::string png = report::svg_to_png(m.captured().toStdString(), 1.5);
                const QString name = u"kwb-chart-%1"_s.arg(n++);
                text.addResource(QTextDocument::ImageResource, QUrl(name),
                    QImage::fromData(reinterpret_cast<const uchar*>(png.data()), static_cast<int>(png.size())));
                replacement = u"<img src=\"%1\" width=\"560\"/>"_s.arg(name);
            } catch (const std::exception& e) {
                replacement = QObject::tr("(chart not printed: %1)").arg(QString::fromStdString(e.what()));
            }
        }
        html.replace(m.capturedStart(), m.capturedLength(), replacement);
    }
    text.setHtml(html);
    text.print(printer);
    return {};
}

void addReportActions(QMenu* file, QWidget* parent, const StudyDocument* document)
{
    QMenu* menu = file->addMenu(QObject::tr("&Export Report"));
    menu->setObjectName(u"exportReportMenu"_s);
    QAction* pdf = menu->addAction(
        QObject::tr("&PDF…"), parent, [=] { exportAs(parent, document, u"pdf"_s, QObject::tr("PDF (*.pdf)")); });
    pdf->setObjectName(u"exportPdf"_s);
    if (!report::raster_available()) {
        pdf->setEnabled(false);
        pdf->setToolTip(QString::fromStdString(report::raster_unavailable_reason()));
    }
    menu->addAction(
            QObject::tr("&HTML…"), parent, [=] { exportAs(parent, document, u"html"_s, QObject::tr("HTML (*.html)")); })
        ->setObjectName(u"exportHtml"_s);
    menu->addAction(QObject::tr("&Markdown…"), parent,
            [=] { exportAs(parent, document, u"md"_s, QObject::tr("Markdown (*.md)")); })
        ->setObjectName(u"exportMarkdown"_s);
    menu->addAction(
            QObject::tr("&JSON…"), parent, [=] { exportAs(parent, document, u"json"_s, QObject::tr("JSON (*.json)")); })
        ->setObjectName(u"exportJson"_s);
    file->addAction(QObject::tr("&Print Report…"), QKeySequence::Print, parent, [=] { print(parent, document); })
        ->setObjectName(u"printReport"_s);
}

} // namespace kwb::gui
