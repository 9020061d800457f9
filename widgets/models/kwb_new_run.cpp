// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/kwb_new_run.h"

#include "study/study_file.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QUuid>

namespace kwb::gui {

using namespace Qt::StringLiterals;

KwbNewRun::KwbNewRun(QObject* parent)
    : QObject(parent)
{
}

KwbNewRun::~KwbNewRun()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(5000))
            m_process->kill();
    }
    removeOut();
}

void KwbNewRun::removeOut()
{
    if (!m_out.isEmpty())
        QFile::remove(m_out);
    m_out.clear();
}

void KwbNewRun::start(const QString& program, const QStringList& arguments)
{
    if (m_process)
        return;
    removeOut();
    m_out = QDir::temp().filePath(u"kwb-new-%1.json"_s.arg(QUuid::createUuid().toString(QUuid::WithoutBraces)));
    m_process = new QProcess(this);
    m_process->setProgram(program);
    m_process->setArguments(QStringList {u"new"_s} + arguments + QStringList {u"--out"_s, m_out, u"--force"_s});
    connect(m_process, &QProcess::finished, this, &KwbNewRun::done);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const QString why = tr("kwb could not be started: %1 (%2)").arg(m_process->program(), m_process->errorString());
        m_process->deleteLater();
        m_process = nullptr;
        emit finished(why);
    });
    m_process->start();
}

void KwbNewRun::done()
{
    QProcess* kwb = m_process;
    m_process = nullptr;
    kwb->deleteLater();
    if (kwb->exitStatus() != QProcess::NormalExit || kwb->exitCode() != 0) {
        // kwb's own line names the option and the problem (a ref that does not resolve, a dirty
        // tree, two refs that are one commit: an A/A).
        const QStringList lines = QString::fromUtf8(kwb->readAllStandardError()).trimmed().split(u'\n');
        QString why = lines.isEmpty() ? QString() : lines.last().trimmed();
        if (why.startsWith(u"kwb: "_s))
            why = why.mid(5);
        removeOut();
        emit finished(why.isEmpty() ? tr("kwb new ended with status %1").arg(kwb->exitCode()) : why);
        return;
    }
    try {
        m_study = load_study(m_out.toStdString());
    } catch (const std::exception& e) {
        removeOut();
        emit finished(QString::fromUtf8(e.what()));
        return;
    }
    removeOut();
    emit finished(QString());
}

} // namespace kwb::gui
