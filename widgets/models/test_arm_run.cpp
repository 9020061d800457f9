// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/test_arm_run.h"

#include <QJsonDocument>
#include <QProcess>

namespace kwb::gui {

using namespace Qt::StringLiterals;

TestArmRun::TestArmRun(QObject* parent)
    : QObject(parent)
{
}

TestArmRun::~TestArmRun()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(5000))
            m_process->kill();
    }
}

void TestArmRun::start(const QString& program, const QStringList& arguments, const QByteArray& input)
{
    if (m_process)
        return;
    m_process = new QProcess(this);
    m_process->setProgram(program);
    m_process->setArguments(QStringList {u"test-arm"_s} + arguments);
    connect(m_process, &QProcess::started, this, [this, input] {
        m_process->write(input);
        m_process->closeWriteChannel();
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const QString why = tr("%1 could not be started (%2)").arg(m_process->program(), m_process->errorString());
        m_process->deleteLater();
        m_process = nullptr;
        emit finished({}, why);
    });
    connect(m_process, &QProcess::finished, this, &TestArmRun::done);
    m_process->start();
}

void TestArmRun::done()
{
    QProcess* run = m_process;
    m_process = nullptr;
    run->deleteLater();
    const QJsonObject answer = QJsonDocument::fromJson(run->readAllStandardOutput().trimmed()).object();
    if (!answer.isEmpty()) {
        emit finished(answer, {});
        return;
    }
    // Bad input (exit 2) or a crash: kwb's own one line says why.
    const QString why = QString::fromUtf8(run->readAllStandardError()).trimmed().section(u'\n', -1);
    emit finished({}, why.isEmpty() ? tr("kwb test-arm ended with status %1").arg(run->exitCode()) : why);
}

} // namespace kwb::gui
