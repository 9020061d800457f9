// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/remote_hosts.h"
#include "study/study.h"

#include <QJsonArray>
#include <QObject>
#include <QProcess>

namespace kwb::gui {

// The devices this machine offers, asked of `kwb devices --json` in a child process. Why not
// in-process: the GUI never loads the GPU backend, so a broken driver can neither hang nor crash
// the window; it only costs the status bar its GPU name, with the reason kwb gave.
class DeviceProbe : public QObject {
    Q_OBJECT
public:
    explicit DeviceProbe(QObject* parent = nullptr);

    void start(const QString& kwbProgram);
    // The devices of an ssh host, from its kwb (`kwb devices --json --host ...`, docs/remote.md).
    void startOnHost(const QString& kwbProgram, const RemoteHost& host);
    // The host whose devices these are; empty for this machine.
    QString host() const { return m_host; }
    bool waitForFinished(int msecs);
    bool isFinished() const { return m_finished; }

    QJsonArray devices() const { return m_devices; }
    // The first CUDA GPU's name if any, else the CPU's; a short notice while unknown.
    QString deviceInUse() const;
    // The device `experiment` would run on here, by the engine's rule (workloads/backend_choice.h:
    // an embedded workload's auto goes to a GPU that can run it, a command's stays on the CPU unless
    // told, a worker's is the device it described), as the engine's same_device rule compares it;
    // empty when unknown. `deviceNamed`: the run names its devices (--devices).
    DeviceIdentity runningDevice(const Experiment& experiment, bool deviceNamed = false) const;
    // Why GPUs are unavailable (kwb's stderr line), or why the probe itself failed.
    QString gpuUnavailableReason() const { return m_reason; }

    // Parses `kwb devices --json` output; exposed for tests.
    void setResult(const QByteArray& stdoutText, const QByteArray& stderrText);

signals:
    void finished();

private:
    QProcess* m_process = nullptr;
    QJsonArray m_devices;
    QString m_reason;
    bool m_finished = false;
    QString m_host;
    void startWith(const QString& kwbProgram, const QStringList& args);
};

} // namespace kwb::gui
