// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QObject>
#include <QString>
#include <functional>

class QTimer;
class QUndoStack;

namespace kwb::gui {

// The one Study the window shows: every page reads it from here and nothing keeps a copy of its
// results, so a reload after `kwb run` exits updates every view at once. While a run owns the
// file (locked), saving is refused: the child process is the only writer then.
class StudyDocument : public QObject {
    Q_OBJECT
public:
    explicit StudyDocument(QObject* parent = nullptr);

    const Study& study() const { return m_study; }
    // Low-level access for loaders and tests; editors use edit() so every change can be undone.
    Study& mutableStudy() { return m_study; }
    void markModified();

    // Every edit a page makes: `change` is applied to the study inside an undo command named
    // `text`. Edits with the same non-empty `mergeKey` in a row (typing into one field) merge into
    // one undo step. Refused (false) while a run owns the file.
    bool edit(const QString& text, const std::function<void(Study&)>& change, const QString& mergeKey = {});
    QUndoStack* undoStack() const { return m_undo; }

    // Autosave: a modified study is written to a side file a few seconds after each edit (never
    // over the study itself), and the side file is removed on save or a clean close. A side file
    // found beside a study on open means the last session ended without saving: offer it back.
    static QString autosavePathFor(const QString& studyPath);
    QString autosavePath() const { return autosavePathFor(m_path); }
    void setAutosaveDelay(int ms);
    bool autosaveNow();
    bool hasAutosave() const;
    bool restoreAutosave(); // loads the side file's study in place of the open one, modified
    void discardAutosave();

    QString filePath() const { return m_path; }
    bool isModified() const { return m_modified; }
    QString lastError() const { return m_lastError; }

    bool load(const QString& path);
    bool reload();
    // A document with no file behind it (e.g. the bundled demo when no copy can be written).
    bool loadFromText(const QByteArray& text, const QString& origin);
    void newStudy();
    // A new study made by the engine (File > New command A/B: command::new_command_study), shown
    // unsaved with an empty undo history, like New.
    void newStudy(Study study);
    bool save();
    bool saveAs(const QString& path);

    void setLocked(bool locked) { m_locked = locked; }
    bool isLocked() const { return m_locked; }

    // One writer per study (engine/study/study_lock.h): a study another process is running is
    // opened read-only; the reason names that process ("kwb run, PID 1234 on host gpu-01, is
    // running this study"). Empty when the document may be saved over its file.
    QString readOnlyReason() const { return m_readOnlyReason; }
    bool isReadOnly() const { return !m_readOnlyReason.isEmpty(); }
    // Whether the file changed on disk since it was loaded or saved here (another program wrote
    // it): saving over it is refused then; reload, or Save As another file.
    bool changedOnDisk() const;

    // Whether `kwb run` has anything to do: an experiment that is pending, running or stopped
    // (done and failed ones are not rerun).
    bool hasRunnableExperiment() const;
    // A new attempt of a finished experiment (study/new_attempt.h): same arms, plan and profile,
    // no samples or verdicts, a fresh id ("ab-2"). The finished one stays as it was. Returns the
    // new id (a grid cell's: the first cell of the new grid).
    QString appendRerun(int experimentIndex);
    // What Run does on a finished study, the same engine call as `kwb run --new-attempt`: a new
    // attempt of its last experiment; empty (and no change) when something is left to run.
    QString appendNewAttemptIfFinished();

    // The experiment the Live, Results and Verdict views show: the last one holding samples,
    // else the first; -1 when the study has none.
    int currentExperimentIndex() const;
    const Experiment* currentExperiment() const;

    // The bundled demo study (":/studies/demo.json") copied to a writable place so Run can write
    // into it. An existing copy is the user's and is never overwritten. Empty on failure.
    static QString ensureDemoCopy(QString* error);
    static QString demoResourcePath();

signals:
    void changed();
    void filePathChanged(const QString& path);
    void modifiedChanged(bool modified);
    void readOnlyChanged(const QString& reason);

private:
    friend class StudySnapshotCommand;
    void applySnapshot(const Study& study);
    void setModified(bool modified);
    void setPath(const QString& path);

    Study m_study;
    QString m_path;
    QString m_lastError;
    bool m_modified = false;
    bool m_locked = false;
    // Read-only and changed-on-disk state (see readOnlyReason, changedOnDisk).
    void noteDiskState(const QString& path);
    QString m_readOnlyReason;
    struct DiskStamp {
        bool exists = false;
        unsigned long long device = 0, inode = 0;
        long long size = 0, mtime_ns = 0;
        bool operator==(const DiskStamp&) const = default;
    };
    static DiskStamp stampOf(const QString& path);
    DiskStamp m_loadedStamp;
    QUndoStack* m_undo = nullptr;
    QTimer* m_autosave = nullptr;
};

} // namespace kwb::gui
