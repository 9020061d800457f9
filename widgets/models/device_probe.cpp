// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/device_probe.h"

#include "models/workload_catalog.h"
#include "study/arm_roles.h"
#include "study/device_identity.h"
#include "workloads/backend_choice.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kwb::gui {

using namespace Qt::StringLiterals;

DeviceProbe::DeviceProbe(QObject* parent)
    : QObject(parent)
{
}

void DeviceProbe::start(const QString& kwbProgram)
{
    m_host.clear();
    startWith(kwbProgram, {u"devices"_s, u"--json"_s});
}

void DeviceProbe::startOnHost(const QString& kwbProgram, const RemoteHost& host)
{
    m_host = host.destination;
    QStringList args {u"devices"_s, u"--json"_s, u"--host"_s, host.destination};
    if (!host.remoteKwb.isEmpty())
        args << u"--remote-kwb"_s << host.remoteKwb;
    startWith(kwbProgram, args);
}

void DeviceProbe::startWith(const QString& kwbProgram, const QStringList& args)
{
    m_finished = false;
    if (m_process) {
        // A newer question replaces one still out (this machine's sheet, then a host's).
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(5000);
    }
    delete m_process;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::finished, this,
        [this] { setResult(m_process->readAllStandardOutput(), m_process->readAllStandardError()); });
    connect(m_process, &QProcess::errorOccurred, this, [this, kwbProgram](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            m_reason = tr("cannot start %1: %2").arg(kwbProgram, m_process->errorString());
            m_finished = true;
            emit finished();
        }
    });
    m_process->start(kwbProgram, args);
}

bool DeviceProbe::waitForFinished(int msecs)
{
    if (!m_finished && m_process)
        m_process->waitForFinished(msecs);
    return m_finished;
}

QString DeviceProbe::deviceInUse() const
{
    if (!m_finished)
        return m_host.isEmpty() ? tr("detecting devices…") : tr("asking %1 for its devices…").arg(m_host);
    if (!m_host.isEmpty()) {
        // The remote sheet: named with its host, so nobody mistakes it for this machine's.
        for (const auto& d : m_devices)
            if (d.toObject().value("kind"_L1).toString() == "cuda"_L1)
                return tr("%1 on %2").arg(d.toObject().value("name"_L1).toString(), m_host);
        for (const auto& d : m_devices)
            if (d.toObject().value("kind"_L1).toString() == "cpu"_L1)
                return tr("CPU: %1 on %2").arg(d.toObject().value("name"_L1).toString(), m_host);
        return tr("unknown on %1 (kwb devices failed: see the tooltip)").arg(m_host);
    }
    QString cpu;
    for (const auto& d : m_devices) {
        const QJsonObject o = d.toObject();
        if (o.value("kind"_L1).toString() == "cuda"_L1)
            return o.value("name"_L1).toString();
        if (cpu.isEmpty() && o.value("kind"_L1).toString() == "cpu"_L1)
            cpu = o.value("name"_L1).toString();
    }
    return cpu.isEmpty() ? tr("unknown (kwb devices failed: see the tooltip)") : tr("CPU: %1").arg(cpu);
}

DeviceIdentity DeviceProbe::runningDevice(const Experiment& e, bool deviceNamed) const
{
    const auto pick = [&](const char* kind, const std::string& uuid) -> DeviceIdentity {
        DeviceIdentity first;
        for (const auto& d : m_devices) {
            if (d.toObject().value("kind"_L1).toString() != QLatin1StringView(kind))
                continue;
            DeviceIdentity id
                = identity_from_sheet(nlohmann::json::parse(QJsonDocument(d.toObject()).toJson().toStdString()));
            if (uuid.empty() || id.uuid == uuid)
                return id;
            if (first.empty())
                first = id;
        }
        return first;
    };
    // kwb devices lists a CUDA GPU only where the GPU backend loads: then its kernels can run, and
    // the GPU is visible.
    const bool gpu = !pick("cuda", "").empty();
    BackendContext here;
    here.cuda_kernels = gpu;
    here.gpu_visible = gpu;
    here.device_named = deviceNamed;
    const WorkloadDescription* described = findWorkload(e.workload);
    const Backend b
        = chosen_backend(e, e.backend, described ? workload_backends(*described, e) : WorkloadBackends {}, here);
    if (b == Backend::Cpu)
        return pick("cpu", "");
    const Arm* baseline = ab_arms(e).baseline;
    const bool worker = baseline && baseline->worker;
    return pick("cuda", worker ? baseline->worker->description.device.uuid : std::string());
}

void DeviceProbe::setResult(const QByteArray& stdoutText, const QByteArray& stderrText)
{
    const QJsonDocument doc = QJsonDocument::fromJson(stdoutText);
    m_devices = doc.object().value("devices"_L1).toArray();
    const auto lines = QString::fromUtf8(stderrText).split(u'\n', Qt::SkipEmptyParts);
    m_reason = lines.isEmpty() ? QString() : lines.last().trimmed();
    if (m_devices.isEmpty() && m_reason.isEmpty())
        m_reason = tr("kwb devices gave no device list");
    m_finished = true;
    emit finished();
}

} // namespace kwb::gui
