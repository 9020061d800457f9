// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/kwb_install_run.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace kwb::gui {

using namespace Qt::StringLiterals;

KwbInstallRun::KwbInstallRun(QString kwbProgram, QObject* parent)
    : QObject(parent)
    , m_kwb(std::move(kwbProgram))
{
}

KwbInstallRun::~KwbInstallRun()
{
    // A window closed mid-install: kwb unpacks beside the old install and swaps last, so stopping
    // it leaves the host's earlier kwb as it was.
    if (isRunning()) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

bool KwbInstallRun::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

bool KwbInstallRun::start(const QString& destination)
{
    if (isRunning())
        return false;
    m_destination = destination;
    delete m_process;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this, &KwbInstallRun::onDone);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            onDone();
    });
    m_process->start(m_kwb, {u"remote"_s, u"install"_s, destination, u"--json"_s});
    return true;
}

void KwbInstallRun::onDone()
{
    Outcome outcome;
    if (m_process->error() == QProcess::FailedToStart) {
        outcome.error = tr("cannot start %1: %2").arg(m_kwb, m_process->errorString());
    } else {
        const auto answer = QJsonDocument::fromJson(m_process->readAllStandardOutput()).object();
        outcome.installed = answer.value(u"kwb"_s).toString();
        outcome.version = answer.value(u"version"_s).toString();
        outcome.ok = m_process->exitStatus() == QProcess::NormalExit && m_process->exitCode() == 0
            && !outcome.installed.isEmpty();
        if (!outcome.ok) {
            // kwb's own one line says why (unreachable, not unpacked, not this version).
            const QString err = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
            outcome.error = err.isEmpty() ? tr("kwb remote install exited with status %1").arg(m_process->exitCode())
                                          : err.section(u'\n', -1);
        }
    }
    emit finished(outcome);
}

} // namespace kwb::gui
