// SPDX-License-Identifier: GPL-3.0-or-later
// The window's File menu offscreen: Export (PDF, HTML, Markdown, JSON) and Print of the verdict
// report, written to files and checked for their content; a study another process runs opens
// read-only and is never saved over; a study changed on disk since it was loaded is not saved over
// either, and the window offers reload or Save As.
#include "main_window.h"
#include "report_export.h"
#include "study/study_file.h"
#include "study/study_lock.h"

#include <QAction>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPrinter>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <algorithm>
#include <unistd.h>
#include <vector>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {

const QString kKill = QStringLiteral(KWB_TEST_DATA_DIR "/studies/kill.json");

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void trigger(MainWindow& w, const QString& name)
{
    auto* action = w.findChild<QAction*>(name);
    QVERIFY2(action, qPrintable(name));
    QVERIFY2(action->isEnabled(), qPrintable(name + u": "_s + action->toolTip()));
    action->trigger();
}

// The text of a PDF, by poppler's pdftotext where installed (scripts/deps.txt: poppler-utils).
QString pdfText(const QString& pdf)
{
    QProcess p;
    p.start(u"pdftotext"_s, {u"-layout"_s, pdf, u"-"_s});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return {};
    return QString::fromUtf8(p.readAllStandardOutput());
}

// The median height of the PDF's words in points (pdftotext -bbox), 0 where poppler is missing.
// Body text of a readable report is about 10-12 pt; text laid out in printer pixels is about 1.
double medianWordHeight(const QString& pdf)
{
    QProcess p;
    p.start(u"pdftotext"_s, {u"-bbox"_s, pdf, u"-"_s});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return 0;
    static const QRegularExpression word(
        u"<word xMin=\"[0-9.]+\" yMin=\"([0-9.]+)\" xMax=\"[0-9.]+\" yMax=\"([0-9.]+)\""_s);
    std::vector<double> heights;
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    for (auto it = word.globalMatch(out); it.hasNext();) {
        const auto m = it.next();
        heights.push_back(m.captured(2).toDouble() - m.captured(1).toDouble());
    }
    if (heights.empty())
        return 0;
    std::nth_element(heights.begin(), heights.begin() + static_cast<long>(heights.size() / 2), heights.end());
    return heights[heights.size() / 2];
}

} // namespace

class TestWindowFiles : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanup() { setReportDialogs({}, {}); }
    void exportWritesEveryFormat();
    void printLaysTheReportOut();
    void lockedStudyOpensReadOnly();
    void changedOnDiskOffersReloadOrSaveAs();

private:
    QString copyOf(const QString& source, const QString& name);
    QTemporaryDir m_dir;
};

void TestWindowFiles::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    // KWB_TEST_KEEP=1 keeps the exported and printed files, to look at them.
    if (!qEnvironmentVariableIsEmpty("KWB_TEST_KEEP")) {
        m_dir.setAutoRemove(false);
        qInfo("files kept in %s", qPrintable(m_dir.path()));
    }
}

QString TestWindowFiles::copyOf(const QString& source, const QString& name)
{
    const QString path = m_dir.filePath(name);
    QFile::remove(path);
    if (!QFile::copy(source, path))
        return {};
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    return path;
}

void TestWindowFiles::exportWritesEveryFormat()
{
    const QString study = copyOf(kKill, u"kill.json"_s);
    MainWindow w;
    w.setOfferAutosave(false);
    QVERIFY(w.openStudy(study));
    QString suggested;
    setReportDialogs(
        [&](const QString& s, const QString&) {
            suggested = s;
            return m_dir.filePath(u"out/"_s + QFileInfo(s).fileName());
        },
        {});
    QDir(m_dir.path()).mkpath(u"out"_s);

    trigger(w, u"exportMarkdown"_s);
    QCOMPARE(suggested, m_dir.filePath(u"kill-report.md"_s));
    const QString md = QString::fromUtf8(readAll(m_dir.filePath(u"out/kill-report.md"_s)));
    QVERIFY2(md.contains(u"**Verdict: KILL**"_s), qPrintable(md.left(400)));
    QVERIFY(md.contains(u"Attempt ledger: the errors entry"_s));
    QVERIFY(md.contains(u"Differs in block: 128 -> 16"_s));
    // The charts go beside it as PNG files (or SVG where no rasteriser was built), referenced by name.
    const QStringList charts = QDir(m_dir.filePath(u"out"_s)).entryList({u"kill-report-*"_s});
    QVERIFY2(charts.size() >= 2, qPrintable(charts.join(u' ')));
    for (const QString& c : charts)
        QVERIFY2(md.contains(u"]("_s + c + u')'), qPrintable(c));

    trigger(w, u"exportHtml"_s);
    const QByteArray html = readAll(m_dir.filePath(u"out/kill-report.html"_s));
    QVERIFY(html.contains("KILL"));
    QVERIFY(html.contains("<svg"));
    QXmlStreamReader xml(html);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement())
            for (const auto& a : xml.attributes())
                QVERIFY2(a.name() != "src"_L1 && a.name() != "href"_L1, "the HTML report references a file or URL");
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    // The study's hash is in the provenance: the report traces back to the file exported.
    QVERIFY(html.contains(QCryptographicHash::hash(readAll(study), QCryptographicHash::Sha256).toHex()));

    trigger(w, u"exportJson"_s);
    const QJsonObject json = QJsonDocument::fromJson(readAll(m_dir.filePath(u"out/kill-report.json"_s))).object();
    QCOMPARE(json.value(u"verdict"_s).toString(), u"KILL"_s);
    QCOMPARE(json.value(u"report_schema_version"_s).toInt(), 2);

    if (!w.findChild<QAction*>(u"exportPdf"_s)->isEnabled())
        QSKIP("PDF export needs librsvg and cairo at build time");
    trigger(w, u"exportPdf"_s);
    const QString pdf = m_dir.filePath(u"out/kill-report.pdf"_s);
    QVERIFY(readAll(pdf).startsWith("%PDF-"));
    const QString text = pdfText(pdf);
    if (text.isEmpty())
        QSKIP("pdftotext (poppler-utils) is not installed: the PDF's text was not checked");
    QVERIFY2(text.contains(u"KILL"_s), qPrintable(text.left(400)));
    QVERIFY(text.contains(u"errors entry"_s));
}

void TestWindowFiles::printLaysTheReportOut()
{
    const QString study = copyOf(kKill, u"print.json"_s);
    MainWindow w;
    w.setOfferAutosave(false);
    QVERIFY(w.openStudy(study));
    const QString out = m_dir.filePath(u"printed.pdf"_s);
    bool asked = false;
    setReportDialogs({}, [&](QPrinter* printer) {
        asked = true;
        printer->setOutputFormat(QPrinter::PdfFormat);
        printer->setOutputFileName(out);
        return true;
    });
    trigger(w, u"printReport"_s);
    QVERIFY(asked);
    QVERIFY(readAll(out).startsWith("%PDF-"));
    const QString text = pdfText(out);
    if (text.isEmpty())
        QSKIP("pdftotext (poppler-utils) is not installed: the printed text was not checked");
    QVERIFY2(text.contains(u"KILL"_s), qPrintable(text.left(400)));
    QVERIFY(text.contains(u"Attempt ledger"_s));
    // Readable on paper: CSS pixels became points, not printer pixels (1/1200 inch).
    const double height = medianWordHeight(out);
    QVERIFY2(height > 6, qPrintable(u"median word height %1 pt"_s.arg(height)));

    // Cancelling the printer dialog prints nothing.
    const QString cancelled = m_dir.filePath(u"not-printed.pdf"_s);
    setReportDialogs({}, [&](QPrinter* printer) {
        printer->setOutputFormat(QPrinter::PdfFormat);
        printer->setOutputFileName(cancelled);
        return false;
    });
    trigger(w, u"printReport"_s);
    QVERIFY(!QFile::exists(cancelled));
}

void TestWindowFiles::lockedStudyOpensReadOnly()
{
    const QString study = copyOf(kKill, u"locked.json"_s);
    const QByteArray before = readAll(study);
    kwb::LockHolder holder;
    auto lock = kwb::StudyLock::try_acquire(study.toStdString(), &holder); // as `kwb run` holds it
    QVERIFY(lock);

    MainWindow w;
    w.setOfferAutosave(false);
    QVERIFY(w.openStudy(study));
    QVERIFY(w.document()->isReadOnly());
    const QString pid = QString::number(::getpid());
    QVERIFY2(w.shownError().startsWith(u"Read-only: "_s), qPrintable(w.shownError()));
    QVERIFY2(w.shownError().contains(u"PID "_s + pid), qPrintable(w.shownError()));
    QVERIFY(w.windowTitle().contains(u"(read-only)"_s));

    // An edit and Save: refused with the holder named, the file untouched.
    QVERIFY(w.document()->edit(u"rename"_s, [](kwb::Study& s) { s.name = "edited while locked"; }));
    trigger(w, u"saveAction"_s);
    QVERIFY2(w.shownError().contains(u"save refused"_s), qPrintable(w.shownError()));
    QCOMPARE(readAll(study), before);
    QVERIFY(w.document()->isModified());

    // Once the run has ended the study reloads writable and the note goes away.
    lock.reset();
    QVERIFY(w.document()->reload());
    QVERIFY(!w.document()->isReadOnly());
    QVERIFY(!w.shownError().startsWith(u"Read-only: "_s));
    QVERIFY(!w.windowTitle().contains(u"(read-only)"_s));
}

void TestWindowFiles::changedOnDiskOffersReloadOrSaveAs()
{
    const QString study = copyOf(kKill, u"changed.json"_s);
    MainWindow w;
    w.setOfferAutosave(false);
    QVERIFY(w.openStudy(study));
    QVERIFY(!w.document()->changedOnDisk());
    QVERIFY(w.document()->edit(u"rename"_s, [](kwb::Study& s) { s.name = "the window's edit"; }));

    // Another program writes the study meanwhile (an atomic save, as kwb does).
    kwb::Study theirs = kwb::load_study(study.toStdString());
    theirs.name = "written by another program";
    kwb::save_study(theirs, study.toStdString());
    QVERIFY(w.document()->changedOnDisk());
    const QByteArray onDisk = readAll(study);

    int asked = 0;
    MainWindow::DiskChangeAnswer answer = MainWindow::DiskChangeAnswer::Cancel;
    w.setDiskChangeAsker([&](const QString& path) {
        ++asked;
        [&] { QCOMPARE(path, QFileInfo(study).absoluteFilePath()); }();
        return answer;
    });

    // Cancel: nothing written, the edit still there.
    trigger(w, u"saveAction"_s);
    QCOMPARE(asked, 1);
    QCOMPARE(readAll(study), onDisk);
    QVERIFY(w.document()->isModified());
    QCOMPARE(w.document()->study().name, std::string("the window's edit"));

    // Save As: the edits go to another file; the other program's file stays as it wrote it.
    const QString elsewhere = m_dir.filePath(u"changed-mine.json"_s);
    answer = MainWindow::DiskChangeAnswer::SaveAs;
    w.setSavePathAsker([&](const QString&) { return elsewhere; });
    trigger(w, u"saveAction"_s);
    QCOMPARE(asked, 2);
    QCOMPARE(readAll(study), onDisk);
    QCOMPARE(kwb::load_study(elsewhere.toStdString()).name, std::string("the window's edit"));
    QCOMPARE(w.document()->filePath(), QFileInfo(elsewhere).absoluteFilePath());
    QVERIFY(!w.document()->isModified());

    // Reload: back on the first file, the other program's version is what the window shows.
    QVERIFY(w.openStudy(study));
    QVERIFY(w.document()->edit(u"rename"_s, [](kwb::Study& s) { s.name = "another edit"; }));
    theirs.name = "written again by another program";
    kwb::save_study(theirs, study.toStdString());
    answer = MainWindow::DiskChangeAnswer::Reload;
    trigger(w, u"saveAction"_s);
    QCOMPARE(asked, 3);
    QCOMPARE(w.document()->study().name, std::string("written again by another program"));
    QVERIFY(!w.document()->isModified());
    QVERIFY(!w.document()->changedOnDisk());
    // Now a save goes through without asking.
    QVERIFY(w.document()->edit(u"rename"_s, [](kwb::Study& s) { s.name = "saved after reload"; }));
    trigger(w, u"saveAction"_s);
    QCOMPARE(asked, 3);
    QCOMPARE(kwb::load_study(study.toStdString()).name, std::string("saved after reload"));
}

QTEST_MAIN(TestWindowFiles)
#include "tst_window_files.moc"
