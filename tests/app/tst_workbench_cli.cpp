// SPDX-License-Identifier: GPL-3.0-or-later
// kernel-workbench's command line (shared/spec/cli.md): the screenshot form for every view,
// with and without a STUDY, and its errors.
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
const QString kProgram = QStringLiteral(KWB_BIN_DIR "/kernel-workbench");

struct Result {
    int exitCode = -1;
    QString stderrText;
};

Result runWorkbench(const QStringList& args, const QProcessEnvironment& env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(kProgram, args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError())};
}

// A picture, not a blank: at least a few hundred distinct colours.
int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return static_cast<int>(colours.size());
}
} // namespace

class TestWorkbenchCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void screenshotOfEveryView_data();
    void screenshotOfEveryView();
    void screenshotOfAStudyFileAtASize();
    void sizeBeyondTheScreenIsCapped();
    void badInputExits2_data();
    void badInputExits2();
    void noDisplaySaysHowToTakeAScreenshot();

private:
    QTemporaryDir m_dir;
    QProcessEnvironment m_env;
};

void TestWorkbenchCli::initTestCase()
{
    QVERIFY2(QFile::exists(kProgram), qPrintable(kProgram));
    m_env = QProcessEnvironment::systemEnvironment();
    m_env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    // Keep the user's data and settings folders out of it.
    m_env.insert(u"XDG_DATA_HOME"_s, m_dir.filePath(u"data"_s));
    m_env.insert(u"XDG_CONFIG_HOME"_s, m_dir.filePath(u"config"_s));
}

void TestWorkbenchCli::screenshotOfEveryView_data()
{
    QTest::addColumn<QString>("view");
    for (const char* v : {"1", "2", "3", "4", "5", "6", "7", "8", "live", "results"})
        QTest::addRow("%s", v) << QString::fromLatin1(v);
}

void TestWorkbenchCli::screenshotOfEveryView()
{
    QFETCH(QString, view);
    const QString png = m_dir.filePath(u"view-"_s + view + u".png"_s);
    const Result r = runWorkbench({u"--phase"_s, view, u"--screenshot"_s, png}, m_env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1280, 800));
    QVERIFY(distinctColours(image) > 20);
    // A screenshot of the demo writes nothing into the user's data folder.
    QVERIFY(!QFile::exists(m_dir.filePath(u"data/kernel-workbench/kernel-workbench/demo.json"_s)));
}

void TestWorkbenchCli::screenshotOfAStudyFileAtASize()
{
    const QString study = QStringLiteral(KWB_SOURCE_DIR "/resources/studies/demo.json");
    const QString png = m_dir.filePath(u"sized.png"_s);
    const Result r
        = runWorkbench({study, u"--phase"_s, u"results"_s, u"--screenshot"_s, png, u"--size"_s, u"1024x700"_s}, m_env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
    QCOMPARE(QImage(png).size(), QSize(1024, 700));
}

void TestWorkbenchCli::sizeBeyondTheScreenIsCapped()
{
    // Offscreen there is no physical screen: the cap is 8K UHD (7680x4320), said in one line.
    const QString png = m_dir.filePath(u"capped.png"_s);
    const Result r = runWorkbench(
        {u"--phase"_s, u"1"_s, u"--screenshot"_s, png, u"--size"_s, u"99999999999999999999x700"_s}, m_env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
    const QStringList lines = r.stderrText.split(u'\n', Qt::SkipEmptyParts).filter(u"kernel-workbench:"_s);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(
        lines.first().contains(u"--size"_s) && lines.first().contains(u"using 7680x700"_s), qPrintable(lines.first()));
    QCOMPARE(QImage(png).size(), QSize(7680, 700));
}

void TestWorkbenchCli::badInputExits2_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::addRow("missing study") << QStringList {u"/nonexistent/s.json"_s, u"--phase"_s, u"8"_s, u"--screenshot"_s,
        u"x.png"_s} << u"/nonexistent/s.json"_s;
    QTest::addRow("unknown view") << QStringList {u"--phase"_s, u"9"_s, u"--screenshot"_s, u"x.png"_s} << u"--phase"_s;
    QTest::addRow("bad size") << QStringList {u"--phase"_s, u"1"_s, u"--screenshot"_s, u"x.png"_s, u"--size"_s,
        u"big"_s} << u"--size"_s;
    QTest::addRow("unknown option") << QStringList {u"--frobnicate"_s} << u"frobnicate"_s;
}

void TestWorkbenchCli::badInputExits2()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Result r = runWorkbench(args, m_env);
    QCOMPARE(r.exitCode, 2);
    const QStringList lines = r.stderrText.split(u'\n', Qt::SkipEmptyParts).filter(u"kernel-workbench:"_s);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().contains(message), qPrintable(r.stderrText));
}

void TestWorkbenchCli::noDisplaySaysHowToTakeAScreenshot()
{
    QProcessEnvironment env = m_env;
    env.remove(u"QT_QPA_PLATFORM"_s);
    env.remove(u"DISPLAY"_s);
    env.remove(u"WAYLAND_DISPLAY"_s);
    const Result r = runWorkbench({}, env);
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.stderrText.count(u'\n'), 1);
    QVERIFY(r.stderrText.contains(u"QT_QPA_PLATFORM=offscreen kernel-workbench --phase 8 --screenshot"_s));
}

QTEST_GUILESS_MAIN(TestWorkbenchCli)
#include "tst_workbench_cli.moc"
