// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/study_document.h"

#include "study/new_attempt.h"
#include "study/study_file.h"
#include "study/study_lock.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>
#include <cctype>
#include <filesystem>
#include <optional>
#include <sys/stat.h>

namespace kwb::gui {

using namespace Qt::StringLiterals;

namespace {
std::filesystem::path toFsPath(const QString& path)
{
    return std::filesystem::path(QFile::encodeName(path).toStdString());
}
} // namespace

StudyDocument::StudyDocument(QObject* parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
    , m_autosave(new QTimer(this))
{
    m_autosave->setSingleShot(true);
    m_autosave->setInterval(3000);
    connect(m_autosave, &QTimer::timeout, this, [this] { autosaveNow(); });
}

void StudyDocument::markModified()
{
    setModified(true);
    m_autosave->start();
    emit changed();
}

bool StudyDocument::load(const QString& path)
{
    try {
        m_study = load_study(toFsPath(path));
    } catch (const std::exception& e) {
        // Keep the document as it was: a failed open must not cost the user the open study.
        m_lastError = QString::fromUtf8(e.what());
        return false;
    }
    m_lastError.clear();
    // A reload after a run keeps the edit history's meaning only if nothing changed underneath;
    // the study came from disk, so the history of another state would undo into nonsense.
    m_undo->clear();
    setPath(QFileInfo(path).absoluteFilePath());
    noteDiskState(m_path);
    setModified(false);
    emit changed();
    return true;
}

StudyDocument::DiskStamp StudyDocument::stampOf(const QString& path)
{
    DiskStamp d;
    struct stat st = {};
    if (path.isEmpty() || ::stat(QFile::encodeName(path).constData(), &st) != 0)
        return d;
    d.exists = true;
    d.device = st.st_dev;
    d.inode = st.st_ino; // every atomic save is a new inode
    d.size = st.st_size;
    d.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    return d;
}

void StudyDocument::noteDiskState(const QString& path)
{
    m_loadedStamp = stampOf(path);
    QString reason;
    if (!path.isEmpty())
        if (const auto holder = study_lock_holder(toFsPath(path)))
            reason = tr("kwb run (%1) is running this study: opened read-only until it ends")
                         .arg(QString::fromStdString(holder->describe()));
    if (reason != m_readOnlyReason) {
        m_readOnlyReason = reason;
        emit readOnlyChanged(reason);
    }
}

bool StudyDocument::changedOnDisk() const
{
    return !m_path.isEmpty() && m_loadedStamp.exists && !(stampOf(m_path) == m_loadedStamp);
}

bool StudyDocument::reload()
{
    if (m_path.isEmpty()) {
        m_lastError = tr("the study has no file to reload");
        return false;
    }
    return load(m_path);
}

bool StudyDocument::loadFromText(const QByteArray& text, const QString& origin)
{
    try {
        m_study
            = parse_study(std::string_view(text.constData(), static_cast<size_t>(text.size())), origin.toStdString());
    } catch (const std::exception& e) {
        m_lastError = QString::fromUtf8(e.what());
        return false;
    }
    m_lastError.clear();
    m_undo->clear();
    setPath(QString());
    noteDiskState(QString());
    setModified(false);
    emit changed();
    return true;
}

void StudyDocument::newStudy()
{
    Study s;
    s.name = "Untitled study";
    for (const auto& axis : tradeoff_axes())
        s.tradeoffs.push_back({axis, false, {}});
    newStudy(std::move(s));
}

void StudyDocument::newStudy(Study study)
{
    m_study = std::move(study);
    m_undo->clear();
    setPath(QString());
    noteDiskState(QString());
    setModified(true);
    emit changed();
}

bool StudyDocument::save()
{
    if (m_path.isEmpty()) {
        m_lastError = tr("the study has no file yet: use Save As");
        return false;
    }
    return saveAs(m_path);
}

bool StudyDocument::saveAs(const QString& path)
{
    if (m_locked) {
        m_lastError = tr("a run owns the study file; it is saved by kwb and reloaded when the run ends");
        return false;
    }
    const bool sameFile = !m_path.isEmpty() && QFileInfo(path).absoluteFilePath() == m_path;
    if (sameFile && changedOnDisk()) {
        m_lastError = tr("%1 changed on disk since it was loaded (another program wrote it): reload it, or use "
                         "Save As to keep these edits in another file")
                          .arg(m_path);
        return false;
    }
    // The lock is held for the save: no kwb run can start on the file meanwhile, and one running
    // makes the save fail with its PID and host (the study is then read-only here).
    LockHolder holder;
    std::optional<StudyLock> lock;
    try {
        lock = StudyLock::try_acquire(toFsPath(path), &holder);
        if (!lock) {
            m_lastError = tr("%1 is being run by %2: save refused (use Save As to keep these edits)")
                              .arg(path, QString::fromStdString(holder.describe()));
            if (sameFile)
                noteDiskState(m_path);
            return false;
        }
        save_study(m_study, toFsPath(path));
    } catch (const std::exception& e) {
        m_lastError = QString::fromUtf8(e.what());
        return false;
    }
    lock.reset();
    m_lastError.clear();
    discardAutosave(); // the side file of the old path (an untitled study's, say)
    setPath(QFileInfo(path).absoluteFilePath());
    noteDiskState(m_path);
    setModified(false);
    discardAutosave();
    return true;
}

bool StudyDocument::hasRunnableExperiment() const
{
    return has_runnable_experiment(m_study);
}

QString StudyDocument::appendRerun(int experimentIndex)
{
    if (experimentIndex < 0 || experimentIndex >= static_cast<int>(m_study.experiments.size()))
        return {};
    std::vector<std::string> ids;
    if (!edit(tr("New attempt"), [&](Study& s) { ids = append_new_attempt(s, experimentIndex); }) || ids.empty())
        return {};
    return QString::fromStdString(ids.front());
}

QString StudyDocument::appendNewAttemptIfFinished()
{
    const auto ids = new_attempt_if_finished(m_study);
    if (ids.empty())
        return {};
    markModified();
    return QString::fromStdString(ids.front());
}

int StudyDocument::currentExperimentIndex() const
{
    const auto& ex = m_study.experiments;
    for (int i = static_cast<int>(ex.size()) - 1; i >= 0; --i)
        if (!ex[static_cast<size_t>(i)].samples.empty())
            return i;
    return ex.empty() ? -1 : 0;
}

const Experiment* StudyDocument::currentExperiment() const
{
    const int i = currentExperimentIndex();
    return i < 0 ? nullptr : &m_study.experiments[static_cast<size_t>(i)];
}

QString StudyDocument::demoResourcePath()
{
    return u":/studies/demo.json"_s;
}

QString StudyDocument::ensureDemoCopy(QString* error)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    const QString target = dir + u"/demo.json"_s;
    if (QFileInfo::exists(target))
        return target;
    QFile source(demoResourcePath());
    if (!source.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("the bundled demo study is missing from this build");
        return {};
    }
    const QByteArray text = source.readAll();
    // Written whole or not at all: a half-written copy would be found and opened next time.
    QSaveFile out(target);
    if (!QDir().mkpath(dir) || !out.open(QIODevice::WriteOnly) || out.write(text) != text.size() || !out.commit()) {
        if (error)
            *error = tr("cannot write %1: %2").arg(target, out.errorString());
        return {};
    }
    return target;
}

void StudyDocument::setModified(bool modified)
{
    if (m_modified == modified)
        return;
    m_modified = modified;
    emit modifiedChanged(modified);
}

void StudyDocument::setPath(const QString& path)
{
    if (m_path == path)
        return;
    m_path = path;
    emit filePathChanged(path);
}

} // namespace kwb::gui
