// SPDX-License-Identifier: GPL-3.0-or-later
// Autosave of the open study to a side file, so a crash costs at most a few seconds of edits.
// The study file itself is only ever written by Save (and by kwb during a run).
#include "models/study_document.h"
#include "study/study_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>

namespace kwb::gui {

using namespace Qt::StringLiterals;

QString StudyDocument::autosavePathFor(const QString& studyPath)
{
    if (!studyPath.isEmpty()) {
        const QFileInfo info(studyPath);
        return info.absolutePath() + u"/."_s + info.fileName() + u".autosave"_s;
    }
    // A study with no file yet: one side file per user, in the application's data folder.
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + u"/untitled.autosave.json"_s;
}

void StudyDocument::setAutosaveDelay(int ms)
{
    m_autosave->setInterval(ms);
}

bool StudyDocument::autosaveNow()
{
    m_autosave->stop();
    if (!m_modified)
        return true;
    const QString side = autosavePath();
    QDir().mkpath(QFileInfo(side).absolutePath());
    try {
        save_study(m_study, std::filesystem::path(QFile::encodeName(side).toStdString()));
    } catch (const std::exception& e) {
        m_lastError = tr("autosave to %1 failed: %2").arg(side, QString::fromUtf8(e.what()));
        return false;
    }
    return true;
}

bool StudyDocument::hasAutosave() const
{
    const QFileInfo side(autosavePath());
    if (!side.exists())
        return false;
    // A side file older than the study is from before the study's last save (by kwb, say).
    return m_path.isEmpty() || side.lastModified() >= QFileInfo(m_path).lastModified();
}

bool StudyDocument::restoreAutosave()
{
    const QString side = autosavePath();
    try {
        Study restored = load_study(std::filesystem::path(QFile::encodeName(side).toStdString()));
        m_study = std::move(restored);
    } catch (const std::exception& e) {
        m_lastError = tr("cannot restore %1: %2").arg(side, QString::fromUtf8(e.what()));
        return false;
    }
    m_undo->clear();
    m_lastError.clear();
    markModified();
    return true;
}

void StudyDocument::discardAutosave()
{
    m_autosave->stop();
    QFile::remove(autosavePath());
}

} // namespace kwb::gui
