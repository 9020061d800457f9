// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QStringList>

class QProcess;

namespace kwb::gui {

// One `kwb test-arm ... --json` in a child process (docs/cli.md): the window's "Test once" for a
// command or a worker arm. The window runs nothing itself; kwb runs the arm as a run would and
// answers in one JSON object. The arm goes on stdin as the window holds it, so an unsaved edit is
// what is tested. Destroying it ends the child with everything it started (kwb stops on SIGTERM).
class TestArmRun : public QObject {
    Q_OBJECT
public:
    explicit TestArmRun(QObject* parent = nullptr);
    ~TestArmRun() override;

    // `arguments` follow `kwb test-arm`; `input` is written to the child's stdin, then closed.
    void start(const QString& program, const QStringList& arguments, const QByteArray& input);
    bool isRunning() const { return m_process != nullptr; }

signals:
    // `answer` is kwb's JSON object; when it is empty, `failure` says why in one line (kwb's own
    // last stderr line for bad input, or why kwb could not be started).
    void finished(const QJsonObject& answer, const QString& failure);

private:
    void done();
    QProcess* m_process = nullptr;
};

} // namespace kwb::gui
