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

// The report of the study as open. The provenance hashes the file as last saved.
report::Report currentReport(const StudyDocument* document)
{
    report::Provenance p;
    p.study_path = document->filePath().toStdString();
    p.command_line = "kernel-workbench: File > Export";
    QFile f(document->filePath());
    if (!document->filePath().isEmpty() && f.open(QIODevice::ReadOnly))
        p.study_sha256 = report::sha256_hex(f.readAll().toStdString());
    return report::build_report(document->study(), std::move(p));
}

void exportAs(
    QWidget* parent, const StudyDocument* document, report::Format format, const QString& suffix, const QString& filter)
{
    const QFileInfo study(document->filePath());
    const QString suggested = study.path() + u'/'
        + (study.completeBaseName().isEmpty() ? u"study"_s : study.completeBaseName()) + u"-report."_s + suffix;
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export report"), suggested, filter);
    if (path.isEmpty())
        return;
    try {
        report::write_report(currentReport(document), format, path.toStdString());
    } catch (const std::exception& e) {
        QMessageBox::warning(
            parent, QObject::tr("Export report"), QObject::tr("%1: %2").arg(path, QString::fromStdString(e.what())));
    }
}

// QTextDocument cannot draw inline SVG: each chart becomes an image resource, rasterised by the
// same librsvg path the Markdown report uses (or is left out, with a note, where it is absent).
void print(QWidget* parent, const StudyDocument* document)
{
    QPrinter printer(QPrinter::HighResolution);
    QPrintDialog dialog(&printer, parent);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString html = QString::fromStdString(report::render_html(currentReport(document)));
    QTextDocument text;
    static const QRegularExpression svg(u"<svg[\\s\\S]*?</svg>"_s);
    int n = 0;
    for (auto m = svg.match(html); m.hasMatch(); m = svg.match(html, m.capturedStart() + 1)) {
        QString replacement
            = QObject::tr("(chart not printed: %1)").arg(QString::fromStdString(report::raster_unavailable_reason()));
        if (report::raster_available()) {
            const std::string png = report::svg_to_png(m.captured().toStdString(), 1.5);
            const QString name = u"kwb-chart-%1"_s.arg(n++);
            text.addResource(QTextDocument::ImageResource, QUrl(name),
                QImage::fromData(reinterpret_cast<const uchar*>(png.data()), static_cast<int>(png.size())));
            replacement = u"<img src=\"%1\" width=\"560\"/>"_s.arg(name);
        }
        html.replace(m.capturedStart(), m.capturedLength(), replacement);
    }
    text.setHtml(html);
    text.print(&printer);
}

} // namespace

void addReportActions(QMenu* file, QWidget* parent, const StudyDocument* document)
{
    QMenu* menu = file->addMenu(QObject::tr("&Export Report"));
    QAction* pdf = menu->addAction(QObject::tr("&PDF…"), parent,
        [=] { exportAs(parent, document, report::Format::Pdf, u"pdf"_s, QObject::tr("PDF (*.pdf)")); });
    if (!report::raster_available()) {
        pdf->setEnabled(false);
        pdf->setToolTip(QString::fromStdString(report::raster_unavailable_reason()));
    }
    menu->addAction(QObject::tr("&HTML…"), parent,
        [=] { exportAs(parent, document, report::Format::Html, u"html"_s, QObject::tr("HTML (*.html)")); });
    menu->addAction(QObject::tr("&Markdown…"), parent,
        [=] { exportAs(parent, document, report::Format::Markdown, u"md"_s, QObject::tr("Markdown (*.md)")); });
    menu->addAction(QObject::tr("&JSON…"), parent,
        [=] { exportAs(parent, document, report::Format::Json, u"json"_s, QObject::tr("JSON (*.json)")); });
    file->addAction(QObject::tr("&Print Report…"), QKeySequence::Print, parent, [=] { print(parent, document); });
}

} // namespace kwb::gui
