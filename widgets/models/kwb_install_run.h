// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

class QProcess;

namespace kwb::gui {

// `kwb remote install HOST --json` as a child (docs/remote.md): what the hosts dialog's "Install kwb
// there" and Run on host's offer after a run refused for the remote kwb both start. kwb does the
// install and its checks; this reads its answer: the installed program and version, or kwb's own
// last line saying why not.
class KwbInstallRun : public QObject {
    Q_OBJECT
public:
    explicit KwbInstallRun(QString kwbProgram, QObject* parent = nullptr);
    ~KwbInstallRun() override;

    // False (nothing started) while an install is running.
    bool start(const QString& destination);
    bool isRunning() const;
    QString destination() const { return m_destination; }

    struct Outcome {
        bool ok = false;
        QString installed; // the program's path on the host, e.g. ~/.local/share/kwb/<version>/bin/kwb
        QString version;
        QString error; // one line, when not ok
    };

signals:
    void finished(const KwbInstallRun::Outcome& outcome);

private:
    void onDone();

    QString m_kwb;
    QString m_destination;
    QProcess* m_process = nullptr;
};

} // namespace kwb::gui
