// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QObject>
#include <QString>

namespace kwb::gui {

// The one Study the window shows: every page reads it from here and nothing keeps a copy of its
// results, so a reload after `kwb run` exits updates every view at once. While a run owns the
// file (locked), saving is refused: the child process is the only writer then.
class StudyDocument : public QObject
{
    Q_OBJECT
public:
    explicit StudyDocument(QObject* parent = nullptr);

    const Study& study() const { return m_study; }
    // For editors: change the study, then call markModified() so views refresh and Save knows.
    Study& mutableStudy() { return m_study; }
    void markModified();

    QString filePath() const { return m_path; }
    bool isModified() const { return m_modified; }
    QString lastError() const { return m_lastError; }

    bool load(const QString& path);
    bool reload();
    // A document with no file behind it (e.g. the bundled demo when no copy can be written).
    bool loadFromText(const QByteArray& text, const QString& origin);
    void newStudy();
    bool save();
    bool saveAs(const QString& path);

    void setLocked(bool locked) { m_locked = locked; }
    bool isLocked() const { return m_locked; }

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

private:
    void setModified(bool modified);
    void setPath(const QString& path);

    Study m_study;
    QString m_path;
    QString m_lastError;
    bool m_modified = false;
    bool m_locked = false;
};

} // namespace kwb::gui
