// SPDX-License-Identifier: GPL-3.0-or-later
// The window runs a study on a remote host (docs/remote.md), offscreen, against a real sshd on
// localhost that this test starts: Run on host feeds the same live views and the study comes back
// whole; a dropped connection is survived; closing the window lets go of the run and opening the
// study again reattaches by itself; the host's devices fill the hardware sheet.
#include "main_window.h"
#include "models/device_probe.h"
#include "models/remote_hosts.h"
#include "models/run_controller.h"
#include "pages/live_page.h"
#include "pages/remote_hosts_dialog.h"
#include "plots/live_plot.h"
#include "remote_actions.h"
#include "sshd_fixture.h"
#include "study/remote_marker.h"
#include "study/study_file.h"

#include <QFileInfo>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

using namespace Qt::StringLiterals;
using namespace kwb::gui;

namespace {
const QString kKwb = QStringLiteral(KWB_BIN_DIR "/kwb");
constexpr int kRunTimeout = 300000;

int judgedSamples(const kwb::Experiment& e, bool* distinct)
{
    QSet<int> positions;
    *distinct = true;
    for (const auto& s : e.samples)
        if (!s.warmup) {
            *distinct = *distinct && !positions.contains(s.position);
            positions.insert(s.position);
        }
    return static_cast<int>(positions.size());
}
} // namespace

class TestWorkbenchRemote : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void hostListIsKeptInTheSettings();
    void hostsDialogEditsTheList();
    void hostsDialogInstallsKwbThere();
    void runOnHostWithoutKwbOffersTheInstall();
    void runOnHostFeedsTheLiveViewsAndComesBackWhole();
    void droppedConnectionMidRunStillBringsTheStudyBack();
    void closingTheWindowLetsGoAndOpeningReattaches();

private:
    QString newStudy(const QString& name, const QStringList& plan);
    RemoteHost host() const { return {u"kwbtest"_s, kKwb, m_dir.filePath(u"remote-runs"_s)}; }
    QTemporaryDir m_dir;
    kwbtest::SshdFixture m_server;
    QString m_skip;
};

void TestWorkbenchRemote::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    qputenv("KWB_PROGRAM", kKwb.toUtf8());
    if (!m_server.start(m_dir.filePath(u"sshd"_s)))
        m_skip = m_server.skipReason();
    else
        qputenv("KWB_SSH", m_server.wrapper().toUtf8());
}

void TestWorkbenchRemote::cleanupTestCase()
{
    m_server.stop();
}

QString TestWorkbenchRemote::newStudy(const QString& name, const QStringList& plan)
{
    const QString path = m_dir.filePath(name);
    QProcess p;
    p.start(kKwb,
        QStringList {u"new"_s, u"--workload"_s, u"gemm"_s, u"--param"_s, u"size=128"_s, u"--vary"_s, u"block=32,128"_s,
            u"--out"_s, path, u"--force"_s}
            + plan);
    p.waitForFinished(60000);
    // The window keeps Run locked until phase 1's target and phase 4's prediction exist.
    kwb::Study s = kwb::load_study(QFile::encodeName(path).toStdString());
    s.target.metric = s.experiments.at(0).metric;
    s.target.current = 30;
    s.target.goal = 20;
    s.prediction.formula = "30";
    s.prediction.predicted_delta_pct = 30;
    kwb::save_study(s, QFile::encodeName(path).toStdString());
    return path;
}

void TestWorkbenchRemote::hostListIsKeptInTheSettings()
{
    const QList<RemoteHost> hosts {
        {u"gpu-01"_s, u"~/opt/kwb/bin/kwb"_s, QString()}, {u"me@h200"_s, {}, u"/scratch/kwb"_s}};
    {
        QSettings settings;
        saveRemoteHosts(settings, hosts);
    }
    QSettings settings;
    QCOMPARE(loadRemoteHosts(settings), hosts);
    QCOMPARE(
        hosts[0].kwbArguments(), (QStringList {u"--host"_s, u"gpu-01"_s, u"--remote-kwb"_s, u"~/opt/kwb/bin/kwb"_s}));
    QCOMPARE(hosts[1].kwbArguments(), (QStringList {u"--host"_s, u"me@h200"_s, u"--remote-dir"_s, u"/scratch/kwb"_s}));
    saveRemoteHosts(settings, {});
}

void TestWorkbenchRemote::hostsDialogEditsTheList()
{
    RemoteHostsDialog dialog({{u"gpu-01"_s, {}, {}}});
    dialog.addHost({u"  gpu-02 "_s, u"/opt/kwb/bin/kwb"_s, u"/scratch"_s});
    dialog.addHost({}); // a row left empty is dropped
    QCOMPARE(dialog.hosts(),
        (QList<RemoteHost> {{u"gpu-01"_s, {}, {}}, {u"gpu-02"_s, u"/opt/kwb/bin/kwb"_s, u"/scratch"_s}}));
    // The window's menu offers each host of the settings, under Run's gate.
    {
        QSettings settings;
        saveRemoteHosts(settings, {{u"gpu-01"_s, {}, {}}});
    }
    MainWindow w;
    QMenu* menu = w.remoteActions()->runOnHostButton()->menu();
    emit menu->aboutToShow();
    QStringList texts;
    for (const QAction* a : menu->actions())
        texts << a->text();
    QVERIFY2(texts.contains(u"Run on gpu-01"_s), qPrintable(texts.join(u", "_s)));
    QVERIFY(texts.contains(u"Remote hosts…"_s));
    QSettings settings;
    saveRemoteHosts(settings, {});
}

// Issue 32: the hosts dialog offers `kwb remote install` for the selected host; the installed
// program fills its remote kwb column. A host without a destination is refused in words.
void TestWorkbenchRemote::hostsDialogInstallsKwbThere()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString dir = m_dir.filePath(u"installed-from-the-window"_s);
    qputenv("KWB_REMOTE_INSTALL_DIR", dir.toUtf8());
    qputenv("XDG_STATE_HOME", m_dir.filePath(u"state"_s).toUtf8());
    RemoteHostsDialog dialog({{u"kwbtest"_s, {}, {}}, {}}, nullptr, kKwb);
    auto* install = dialog.findChild<QPushButton*>(u"installKwbButton"_s);
    QVERIFY(install);
    auto* table = dialog.findChild<QTableWidget*>(u"remoteHostsTable"_s);
    table->setCurrentCell(1, 0); // the empty row
    install->click();
    QVERIFY2(dialog.installStatus().contains(u"ssh destination first"_s), qPrintable(dialog.installStatus()));
    table->setCurrentCell(0, 0);
    install->click();
    QVERIFY(dialog.installing());
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.installing(), 240000);
    QVERIFY2(dialog.installStatus().startsWith(u"Installed kwb "_s), qPrintable(dialog.installStatus()));
    QCOMPARE(dialog.hosts().first().remoteKwb, dir + u"/bin/kwb"_s);
    QVERIFY(QFileInfo(dir + u"/bin/kwb.bin"_s).isExecutable());
    // Without the dialog's kwb program there is no button (the settings-only use of the dialog).
    RemoteHostsDialog plain({});
    QVERIFY(!plain.findChild<QPushButton*>(u"installKwbButton"_s));
    qunsetenv("KWB_REMOTE_INSTALL_DIR");
    qunsetenv("XDG_STATE_HOME");
}

// Issue 32: a run on a host whose kwb is missing is refused by kwb with the remedy in its stream; the
// window offers "Install kwb on HOST, then run there" at the top of Run on host, which installs
// kwb there, keeps the installed program as the host's, and runs the study with it to its end.
void TestWorkbenchRemote::runOnHostWithoutKwbOffersTheInstall()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString dir = m_dir.filePath(u"installed-by-the-offer"_s);
    qputenv("KWB_REMOTE_INSTALL_DIR", dir.toUtf8());
    qputenv("XDG_STATE_HOME", m_dir.filePath(u"state-offer"_s).toUtf8());
    const RemoteHost missing {u"kwbtest"_s, m_dir.filePath(u"nothing-here/kwb"_s), m_dir.filePath(u"remote-runs"_s)};
    {
        QSettings settings;
        saveRemoteHosts(settings, {missing});
    }
    const QString path = newStudy(u"offer.json"_s, {u"--runs"_s, u"3"_s});
    MainWindow w;
    QVERIFY2(w.openStudy(path), qPrintable(w.document()->lastError()));
    QVERIFY(w.remoteActions()->installOffer().isEmpty());
    QVERIFY2(w.remoteActions()->runOn(missing), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QCOMPARE(w.runController()->lastStatus(), u"failed"_s);
    QCOMPARE(w.runController()->remoteInstallRemedy(), u"kwbtest"_s);
    QCOMPARE(w.remoteActions()->installOffer(), u"kwbtest"_s);
    QVERIFY2(w.shownError().contains(u"Install kwb on kwbtest, then run there"_s), qPrintable(w.shownError()));
    QMenu* menu = w.remoteActions()->runOnHostButton()->menu();
    emit menu->aboutToShow();
    QCOMPARE(menu->actions().first(), w.remoteActions()->installAction());
    QCOMPARE(menu->actions().first()->text(), u"Install kwb on kwbtest, then run there"_s);
    QVERIFY(menu->actions().first()->isEnabled());
    menu->actions().first()->trigger();
    QVERIFY(w.remoteActions()->installing());
    QVERIFY(!w.remoteActions()->runOnHostButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!w.remoteActions()->installing() && !w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));
    QVERIFY(w.remoteActions()->installOffer().isEmpty());
    QCOMPARE(w.document()->currentExperiment()->status, kwb::ExperimentStatus::Done);
    QSettings settings;
    QCOMPARE(loadRemoteHosts(settings).first().remoteKwb, dir + u"/bin/kwb"_s);
    saveRemoteHosts(settings, {});
    qunsetenv("KWB_REMOTE_INSTALL_DIR");
    qunsetenv("XDG_STATE_HOME");
}

void TestWorkbenchRemote::runOnHostFeedsTheLiveViewsAndComesBackWhole()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString path = newStudy(u"window.json"_s, {u"--runs"_s, u"4"_s});
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY2(w.openStudy(path), qPrintable(w.document()->lastError()));
    int liveBaseline = 0, liveTreatment = 0;
    QTimer watch;
    connect(&watch, &QTimer::timeout, this, [&] {
        if (w.runController()->isRunning()) {
            liveBaseline = std::max(liveBaseline, w.livePage()->plot()->pointCount(u"baseline"_s));
            liveTreatment = std::max(liveTreatment, w.livePage()->plot()->pointCount(u"treatment"_s));
        }
    });
    watch.start(20);
    QVERIFY2(w.remoteActions()->runOn(host()), qPrintable(w.shownError()));
    QCOMPARE(w.runController()->remoteHost(), u"kwbtest"_s);
    QCOMPARE(w.currentView(), u"live"_s);
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    watch.stop();
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));
    QVERIFY2(liveBaseline > 0 && liveTreatment > 0, "both arms arrived live through the relayed stream");
    // The study came back and was reloaded: every run, judged.
    const kwb::Experiment* e = w.document()->currentExperiment();
    QVERIFY(e);
    QCOMPARE(e->status, kwb::ExperimentStatus::Done);
    bool distinct = false;
    QCOMPARE(judgedSamples(*e, &distinct), 8);
    QVERIFY(distinct && e->verdict.has_value());
    QVERIFY(!w.document()->isLocked());
    QVERIFY(!kwb::read_remote_marker(QFile::encodeName(path).toStdString()));
    // Running on the host also asked it for its devices: the hardware sheet is the host's.
    QTRY_VERIFY_WITH_TIMEOUT(w.deviceProbe()->isFinished(), 60000);
    QCOMPARE(w.deviceProbe()->host(), u"kwbtest"_s);
    QVERIFY(!w.deviceProbe()->devices().isEmpty());
    QVERIFY2(w.deviceProbe()->deviceInUse().endsWith(u" on kwbtest"_s), qPrintable(w.deviceProbe()->deviceInUse()));
}

void TestWorkbenchRemote::droppedConnectionMidRunStillBringsTheStudyBack()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString path = newStudy(u"dropped.json"_s, {u"--stop"_s, u"duration"_s, u"--duration"_s, u"4"_s});
    MainWindow w;
    QVERIFY(w.openStudy(path));
    QVERIFY2(w.remoteActions()->runOn(host()), qPrintable(w.shownError()));
    QTRY_VERIFY_WITH_TIMEOUT(w.runController()->done() >= 2, kRunTimeout);
    const qint64 client = m_server.client(u"tail -c"_s);
    QVERIFY(client > 0);
    QCOMPARE(::kill(static_cast<pid_t>(client), SIGKILL), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));
    const kwb::Experiment* e = w.document()->currentExperiment();
    bool distinct = false;
    QCOMPARE(judgedSamples(*e, &distinct), w.runController()->done());
    QVERIFY(distinct);
    QCOMPARE(e->status, kwb::ExperimentStatus::Done);
}

void TestWorkbenchRemote::closingTheWindowLetsGoAndOpeningReattaches()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    const QString path = newStudy(u"away.json"_s, {u"--stop"_s, u"duration"_s, u"--duration"_s, u"5"_s});
    const std::string file = QFile::encodeName(path).toStdString();
    {
        MainWindow w;
        QVERIFY(w.openStudy(path));
        QVERIFY2(w.remoteActions()->runOn(host()), qPrintable(w.shownError()));
        QTRY_VERIFY_WITH_TIMEOUT(w.runController()->done() >= 1, kRunTimeout);
        w.close(); // lets go of the run: it goes on there
        QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), 60000);
    }
    const auto record = kwb::read_remote_marker(file);
    QVERIFY(record.has_value());
    {
        // Opened while the host cannot be asked (no KWB_SSH: "kwbtest" is no real host), the study
        // stays locked: it is the remote run's until it comes back.
        const QByteArray ssh = qgetenv("KWB_SSH");
        qunsetenv("KWB_SSH");
        MainWindow offline;
        QVERIFY(offline.openStudy(path));
        QTRY_VERIFY_WITH_TIMEOUT(!offline.runController()->isRunning(), 60000);
        QCOMPARE(offline.runController()->lastStatus(), u"failed"_s);
        QVERIFY(offline.document()->isLocked());
        QVERIFY(offline.remoteActions()->reattachAction()->isEnabled());
        // Run knows the study is away: locked with the engine's sentence, as kwb run would refuse.
        const QAction* run = offline.findChild<QAction*>(u"runAction"_s);
        QVERIFY(run && !run->isEnabled());
        QVERIFY2(run->toolTip().contains(u"is being run on host kwbtest"_s), qPrintable(run->toolTip()));
        qputenv("KWB_SSH", ssh);
    }
    QCOMPARE(QString::fromStdString(record->host), u"kwbtest"_s);
    QVERIFY(kwb::load_study(file).experiments.at(0).samples.empty()); // still away

    // Opening it again follows the run at once; the live view replays the stream from its start.
    MainWindow w;
    QVERIFY(w.openStudy(path));
    QVERIFY(w.runController()->isRunning());
    QVERIFY(w.document()->isLocked());
    QCOMPARE(w.runController()->remoteHost(), u"kwbtest"_s);
    QTRY_VERIFY_WITH_TIMEOUT(!w.runController()->isRunning(), kRunTimeout);
    QVERIFY2(w.runController()->lastStatus() == u"done"_s, qPrintable(w.shownError()));
    const kwb::Experiment* e = w.document()->currentExperiment();
    bool distinct = false;
    QVERIFY(judgedSamples(*e, &distinct) >= 10);
    QVERIFY(distinct);
    QCOMPARE(judgedSamples(*e, &distinct), w.runController()->done());
    QCOMPARE(e->status, kwb::ExperimentStatus::Done);
    QVERIFY(!kwb::read_remote_marker(file));
    QVERIFY(!w.remoteActions()->reattachAction()->isEnabled());
    QVERIFY(!w.findChild<QAction*>(u"runAction"_s)->toolTip().contains(u"is being run on"_s));
}

QTEST_MAIN(TestWorkbenchRemote)
#include "tst_workbench_remote.moc"
