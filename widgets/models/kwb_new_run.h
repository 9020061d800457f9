// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "study/study.h"

#include <QObject>
#include <QStringList>

class QProcess;

namespace kwb::gui {

// One `kwb new ... --out TMP --force` in a child process: the window's way to make a study whose
// construction is kwb's own (commit arms: the refs resolved, a dirty tree refused, the A/A rule,
// the toolchain recorded). The study is read back from TMP, then TMP is removed. kwb's own last
// line says why when it refuses (exit 2). Destroying it ends the child.
class KwbNewRun : public QObject {
    Q_OBJECT
public:
    explicit KwbNewRun(QObject* parent = nullptr);
    ~KwbNewRun() override;

    // `arguments` follow `kwb new`; --out and --force are added.
    void start(const QString& program, const QStringList& arguments);
    bool isRunning() const { return m_process != nullptr; }
    const Study& study() const { return m_study; }

signals:
    // `failure` empty: study() holds what kwb new wrote.
    void finished(const QString& failure);

private:
    void done();
    void removeOut();
    QProcess* m_process = nullptr;
    QString m_out;
    Study m_study;
};

} // namespace kwb::gui
