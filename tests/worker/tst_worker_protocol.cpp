// SPDX-License-Identifier: GPL-3.0-or-later
// The worker side of docs/worker-protocol.md (protocol 1), as kwb would drive it: both helpers
// (python/kwb_worker with examples/numpy_cpu, include/kwb/worker.h with examples/cpp_cpu) through
// one scripted exchange each, answer by answer: hello and describe fields, prepare's counts, hot
// and cold timing, verify's file and reference, the wrong variant caught, user exceptions and bad
// requests answered ok:false while the worker keeps serving, prints kept off stdout, release and
// end of input ending with exit 0. Then the Python helper's own edges (prints at import and
// straight to fd 1, a copy returned as output, a file that fails to import). No timing thresholds.
#include "worker_session.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstring>

using kwbtest::WorkerSession;

namespace {

QString L(const char* text)
{
    return QString::fromUtf8(text);
}

const QString kPython = QStringLiteral(KWB_WORKER_PYTHON);
const QString kPythonPath = QStringLiteral("PYTHONPATH=" KWB_SOURCE_DIR "/python");

struct Worker {
    QString program;
    QStringList args;
    QStringList env;
};

Worker python_worker(const QString& file)
{
    return {kPython, {L("-m"), L("kwb_worker"), file}, {kPythonPath}};
}

std::unique_ptr<WorkerSession> start(const Worker& w)
{
    return std::make_unique<WorkerSession>(w.program, w.args, w.env);
}

QJsonObject prepare_request(int n, int block, const char* variant, qint64 seed)
{
    return {
        {L("params"), QJsonObject {{L("n"), n}, {L("block"), block}, {L("variant"), L(variant)}}}, {L("seed"), seed}};
}

// The float32 values of a verify file; fails the test when its size is not elements * 4.
QVector<float> read_output(const QString& path, qint64 elements)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = f.readAll();
    if (bytes.size() != elements * 4)
        return {};
    QVector<float> values(elements);
    for (qint64 i = 0; i < elements; ++i) {
        quint32 bits = 0;
        for (int b = 0; b < 4; ++b) // little-endian, as the protocol says
            bits |= quint32(quint8(bytes[i * 4 + b])) << (8 * b);
        std::memcpy(&values[i], &bits, 4);
    }
    return values;
}

bool one_line_error(const QJsonObject& answer)
{
    const QString e = answer.value(L("error")).toString();
    return answer.value(L("ok")) == QJsonValue(false) && !e.isEmpty() && !e.contains(QLatin1Char('\n'));
}

// Request lines kwb never sends (plain literals: moc misreads raw strings).
QList<QPair<const char*, QByteArray>> malformed_lines()
{
    return {
        {"trailing comma", "{\"op\":\"hello\",\"id\":1,\"protocol\":1,}"},
        {"leading zero", "{\"op\":\"hello\",\"id\":01,\"protocol\":1}"},
        {"missing comma", "{\"op\":\"hello\" \"id\":1}"},
        {"single quotes", "{'op':'hello','id':1}"},
        {"raw control character", "{\"op\":\"hel\x01lo\",\"id\":1}"},
        {"bad escape", "{\"op\":\"hel\\qlo\",\"id\":1}"},
        {"unterminated string", "{\"op\":\"hello,\"id\":1}"},
        {"two values", "{\"op\":\"hello\",\"id\":1,\"protocol\":1} {}"},
        {"Infinity", "{\"op\":\"hello\",\"id\":1,\"protocol\":Infinity}"},
        {"a string", "\"hello\""},
        {"empty line", ""},
        {"boolean id", "{\"op\":\"hello\",\"id\":true,\"protocol\":1}"},
        {"fractional id", "{\"op\":\"hello\",\"id\":1.5,\"protocol\":1}"},
        {"not UTF-8", "{\"op\":\"\xff\xfe\",\"id\":1}"},
        {"lone surrogate", "{\"op\":\"\\ud83d\",\"id\":1}"},
        {"overlong UTF-8", "{\"op\":\"\xc0\xaf\",\"id\":1}"},
        {"deep nesting", "{\"op\":\"hello\",\"id\":1,\"x\":" + QByteArray(100000, '[') + QByteArray(100000, ']') + "}"},
    };
}

} // namespace

class TestWorkerProtocol : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(
            !kPython.isEmpty(), "no python3 with numpy was found at configure time (scripts/deps.txt: python3-numpy)");
    }

    void exchange_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("env");
        QTest::addColumn<QString>("worker_name");
        const Worker py = python_worker(L("examples/numpy_cpu/matmul.py"));
        QTest::addRow("python-numpy") << py.program << py.args << py.env << L("numpy-blocked-matmul");
        QTest::addRow("cpp-cpu") << QStringLiteral(KWB_CPP_CPU_WORKER) << QStringList {} << QStringList {}
                                 << L("cpp-tiled-matmul");
    }

    // The whole life of one arm's worker, in the order kwb asks, plus every fault it must survive.
    void exchange()
    {
        QFETCH(QString, program);
        QFETCH(QStringList, args);
        QFETCH(QStringList, env);
        QFETCH(QString, worker_name);
        QTemporaryDir dir;
        WorkerSession w(program, args, env);
        QVERIFY2(w.started(), qPrintable(program));

        // Asked before prepare: refused, not a crash.
        QVERIFY(one_line_error(w.request(L("time"), {{L("launches"), 1}, {L("cold"), false}})));

        auto a = w.request(L("hello"), {{L("protocol"), 1}});
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        QCOMPARE(a.value(L("protocol")).toInt(), 1);
        QCOMPARE(a.value(L("worker")).toString(), worker_name);
        QVERIFY(one_line_error(w.request(L("hello"), {{L("protocol"), 2}})));

        a = w.request(L("describe"));
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        const auto params = a.value(L("params")).toArray();
        QCOMPARE(params.size(), 3);
        QCOMPARE(params[0].toObject().value(L("name")).toString(), L("n"));
        QCOMPARE(params[0].toObject().value(L("default")).toInt(), 256);
        QCOMPARE(params[1].toObject().value(L("name")).toString(), L("block"));
        QVERIFY(params[1].toObject().value(L("values")).toArray().contains(16));
        QCOMPARE(params[2].toObject().value(L("default")).toString(), L("blocked"));
        QCOMPARE(params[2].toObject().value(L("values")).toArray(), (QJsonArray {L("blocked"), L("wrong")}));
        QCOMPARE(a.value(L("device")).toObject().value(L("kind")).toString(), L("cpu"));
        QCOMPARE(a.value(L("timer")).toString(), L("steady_clock"));
        QCOMPARE(a.value(L("has_reference")), QJsonValue(true));

        // The user's setup throws on n = 0: ok:false in one line, and the worker keeps serving.
        a = w.request(L("prepare"), prepare_request(0, 16, "blocked", 7));
        QVERIFY2(one_line_error(a), qPrintable(a.value(L("error")).toString()));
        QVERIFY2(a.value(L("error")).toString().contains(L("n must be")), qPrintable(a.value(L("error")).toString()));
        QVERIFY(one_line_error(w.request(L("prepare"), prepare_request(64, 7, "blocked", 7)))); // not a value
        QVERIFY(one_line_error(
            w.request(L("prepare"), {{L("params"), QJsonObject {{L("no_such_param"), 1}}}, {L("seed"), 7}})));

        a = w.request(L("prepare"), prepare_request(64, 16, "blocked", 7));
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        QCOMPARE(a.value(L("flop_per_launch")).toDouble(), 2.0 * 64 * 64 * 64);
        QCOMPARE(a.value(L("bytes_per_launch")).toDouble(), 3.0 * 4 * 64 * 64);

        a = w.request(L("time"), {{L("launches"), 3}, {L("cold"), false}});
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        QVERIFY(a.value(L("total_ms")).toDouble() > 0);
        QVERIFY(!a.contains(L("per_launch_ms")));

        a = w.request(L("time"), {{L("launches"), 4}, {L("cold"), true}});
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        const auto per_launch = a.value(L("per_launch_ms")).toArray();
        QCOMPARE(per_launch.size(), 4);
        double sum = 0;
        for (const auto& t : per_launch) {
            QVERIFY(t.isDouble() && t.toDouble() >= 0);
            sum += t.toDouble();
        }
        QVERIFY(a.value(L("total_ms")).toDouble() > 0);
        QVERIFY(std::abs(sum - a.value(L("total_ms")).toDouble()) <= 1e-9 * sum + 1e-12);
        QVERIFY(one_line_error(w.request(L("time"), {{L("launches"), 0}, {L("cold"), false}})));

        // verify: exactly elements float32 values, none NaN, the reference passed; the inputs come
        // from the seed (same seed, same bytes; another seed, other bytes).
        const QString out1 = dir.filePath(L("out1.bin")), out2 = dir.filePath(L("out2.bin")),
                      out3 = dir.filePath(L("out3.bin"));
        a = w.request(L("verify"), {{L("seed"), 11}, {L("output"), out1}});
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        QCOMPARE(a.value(L("elements")).toInteger(), 64 * 64);
        QCOMPARE(a.value(L("dtype")).toString(), L("float32"));
        const auto ref = a.value(L("reference")).toObject();
        QCOMPARE(ref.value(L("passed")), QJsonValue(true));
        QVERIFY(ref.value(L("max_abs_error")).isDouble());
        QVERIFY(ref.value(L("tolerance")).isDouble());
        const auto values = read_output(out1, 64 * 64);
        QCOMPARE(values.size(), 64 * 64);
        for (const float v : values)
            QVERIFY(std::isfinite(v));
        QCOMPARE(w.request(L("verify"), {{L("seed"), 11}, {L("output"), out2}}).value(L("ok")), QJsonValue(true));
        QCOMPARE(read_output(out2, 64 * 64), values);
        QCOMPARE(w.request(L("verify"), {{L("seed"), 12}, {L("output"), out3}}).value(L("ok")), QJsonValue(true));
        QVERIFY(read_output(out3, 64 * 64) != values);

        // The wrong variant writes every element, wrongly: the file is whole, the reference fails.
        QCOMPARE(w.request(L("prepare"), prepare_request(64, 16, "wrong", 7)).value(L("ok")), QJsonValue(true));
        a = w.request(L("verify"), {{L("seed"), 11}, {L("output"), out1}});
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        QCOMPARE(a.value(L("reference")).toObject().value(L("passed")), QJsonValue(false));
        QVERIFY(!a.value(L("reference")).toObject().value(L("detail")).toString().isEmpty());
        const auto wrong = read_output(out1, 64 * 64);
        QCOMPARE(wrong.size(), 64 * 64);
        QVERIFY(wrong != values);
        for (const float v : wrong)
            QVERIFY(std::isfinite(v));

        // Requests kwb never sends: each refused in one line, each answered.
        QVERIFY(one_line_error(w.request(L("no_such_op"))));
        QVERIFY(one_line_error(w.answer("{\"op\": \"hello\", \"id\": ", -1)));
        QVERIFY(one_line_error(w.answer("[1, 2, 3]", -1)));
        QVERIFY(one_line_error(w.answer("{\"op\":\"hello\",\"protocol\":1}", -1))); // no id
        QVERIFY(one_line_error(w.answer("{\"op\":\"hello\",\"id\":900,\"protocol\":NaN}", -1)));
        QVERIFY(one_line_error(
            w.answer("{\"op\":\"hello\",\"id\":901,\"protocol\":1,\"pad\":\"" + QByteArray(1 << 20, 'x') + "\"}", -1)));
        QCOMPARE(w.request(L("hello"), {{L("protocol"), 1}}).value(L("ok")), QJsonValue(true)); // still alive

        QCOMPARE(w.request(L("release")).value(L("ok")), QJsonValue(true));
        QCOMPARE(w.wait_exit(), 0);
        QVERIFY2(w.faults().isEmpty(), qPrintable(w.faults().join(L("; "))));
        // The example's setup prints; it went to stderr, never between the answers.
        QVERIFY2(w.stderr_text().contains("matmul: n=64"), w.stderr_text().constData());
    }

    // Lines kwb never sends, each against both helpers: every one answered ok:false with a null
    // id (none can be read), and the worker answers the next good request.
    void malformed_requests_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("env");
        QTest::addColumn<QByteArray>("line");
        const Worker py = python_worker(L("examples/numpy_cpu/matmul.py"));
        const auto lines = malformed_lines();
        for (const auto& [name, line] : lines) {
            QTest::addRow("python: %s", name) << py.program << py.args << py.env << line;
            QTest::addRow("cpp: %s", name)
                << QStringLiteral(KWB_CPP_CPU_WORKER) << QStringList {} << QStringList {} << line;
        }
    }
    void malformed_requests()
    {
        QFETCH(QString, program);
        QFETCH(QStringList, args);
        QFETCH(QStringList, env);
        QFETCH(QByteArray, line);
        WorkerSession w(program, args, env);
        QVERIFY(w.started());
        const auto a = w.answer(line, -1);
        QVERIFY2(one_line_error(a), qPrintable(QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact))));
        QCOMPARE(w.request(L("hello"), {{L("protocol"), 1}}).value(L("ok")), QJsonValue(true));
        QCOMPARE(w.finish(), 0);
        QVERIFY2(w.faults().isEmpty(), qPrintable(w.faults().join(L("; "))));
    }

    void end_of_input_exits_data() { exchange_data(); }
    // kwb closes stdin after release, or when it gives up: the worker ends with 0 either way.
    void end_of_input_exits()
    {
        QFETCH(QString, program);
        QFETCH(QStringList, args);
        QFETCH(QStringList, env);
        WorkerSession w(program, args, env);
        QVERIFY(w.started());
        QCOMPARE(w.request(L("hello"), {{L("protocol"), 1}}).value(L("ok")), QJsonValue(true));
        QCOMPARE(w.finish(), 0);
        QVERIFY2(w.faults().isEmpty(), qPrintable(w.faults().join(L("; "))));
    }

    void noisy_workers_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("env");
        QTest::addColumn<QStringList>("printed");
        const Worker py = python_worker(QStringLiteral(KWB_WORKER_TEST_DATA "/noisy_kernel.py"));
        QTest::addRow("python") << py.program << py.args << py.env
                                << QStringList {L("noisy: print at import"), L("noisy: sys.stdout at import"),
                                       L("noisy: fd 1 at import"), L("noisy: fd 1 in run"), L("noisy: print in run")};
        QTest::addRow("cpp") << QStringLiteral(KWB_NOISY_CPP_WORKER) << QStringList {} << QStringList {}
                             << QStringList {L("noisy: printf in setup"), L("noisy: cout in setup"),
                                    L("noisy: fd 1 in setup"), L("noisy: printf in run"), L("noisy: fd 1 in run")};
    }

    // What Triton and C extensions do: print at import time and write straight to fd 1. None of
    // it may reach the protocol; an exception mid-batch fails that request only; an element the
    // kernel leaves unwritten stays NaN in the file (the poison), and the reference fails.
    void noisy_workers()
    {
        QFETCH(QString, program);
        QFETCH(QStringList, args);
        QFETCH(QStringList, env);
        QFETCH(QStringList, printed);
        const auto prepare = [](const char* fail, qint64 seed) {
            return QJsonObject {{L("params"), QJsonObject {{L("fail"), L(fail)}}}, {L("seed"), seed}};
        };
        WorkerSession w(program, args, env);
        QVERIFY(w.started());
        QCOMPARE(w.request(L("hello"), {{L("protocol"), 1}}).value(L("ok")), QJsonValue(true));
        auto a = w.request(L("prepare"), prepare("setup", 1));
        QVERIFY(one_line_error(a));
        QVERIFY2(a.value(L("error")).toString().contains(L("setup failed on purpose")),
            qPrintable(a.value(L("error")).toString()));

        QCOMPARE(w.request(L("prepare"), prepare("third-launch", 1)).value(L("ok")), QJsonValue(true));
        a = w.request(L("time"), {{L("launches"), 5}, {L("cold"), false}});
        QVERIFY(one_line_error(a));
        QVERIFY2(a.value(L("error")).toString().contains(L("third launch failed on purpose")),
            qPrintable(a.value(L("error")).toString()));

        QTemporaryDir dir;
        const QString out = dir.filePath(L("o.bin"));
        QCOMPARE(w.request(L("prepare"), prepare("none", 3)).value(L("ok")), QJsonValue(true));
        QCOMPARE(
            w.request(L("time"), {{L("launches"), 2}, {L("cold"), true}}).value(L("per_launch_ms")).toArray().size(),
            2);
        a = w.request(L("verify"), {{L("seed"), 9}, {L("output"), out}});
        QCOMPARE(a.value(L("elements")).toInt(), 4);
        QCOMPARE(a.value(L("reference")).toObject().value(L("passed")), QJsonValue(true));
        QCOMPARE(read_output(out, 4), (QVector<float> {2, 3, 4, 5})); // verify's seed: 9 % 7 + i

        QCOMPARE(w.request(L("prepare"), prepare("skip-last", 3)).value(L("ok")), QJsonValue(true));
        a = w.request(L("verify"), {{L("seed"), 9}, {L("output"), out}});
        QCOMPARE(a.value(L("ok")), QJsonValue(true));
        QCOMPARE(a.value(L("reference")).toObject().value(L("passed")), QJsonValue(false));
        QVERIFY(a.value(L("reference")).toObject().value(L("max_abs_error")).isNull()); // JSON has no NaN
        const auto values = read_output(out, 4);
        QCOMPARE(values.size(), 4);
        QCOMPARE(values.mid(0, 3), (QVector<float> {2, 3, 4}));
        QVERIFY(std::isnan(values[3]));

        QCOMPARE(w.request(L("release")).value(L("ok")), QJsonValue(true));
        QCOMPARE(w.wait_exit(), 0);
        QVERIFY2(w.faults().isEmpty(), qPrintable(w.faults().join(L("; "))));
        const QByteArray err = w.stderr_text();
        for (const auto& line : printed)
            QVERIFY2(err.contains(line.toUtf8()), qPrintable(line));
    }

    // The Python helper's own edges: an error names the user's frame; a copy handed back as the
    // output would dodge the NaN poison and is refused.
    void python_error_names_the_frame_and_refuses_copies()
    {
        auto w = start(python_worker(QStringLiteral(KWB_WORKER_TEST_DATA "/noisy_kernel.py")));
        QVERIFY(w->started());
        auto a = w->request(L("prepare"), {{L("params"), QJsonObject {{L("fail"), L("setup")}}}, {L("seed"), 1}});
        QVERIFY2(a.value(L("error")).toString().contains(L("RuntimeError: setup failed on purpose (noisy_kernel.py:")),
            qPrintable(a.value(L("error")).toString()));
        QTemporaryDir dir;
        QCOMPARE(w->request(L("prepare"), {{L("params"), QJsonObject {{L("fail"), L("copy")}}}, {L("seed"), 3}})
                     .value(L("ok")),
            QJsonValue(true));
        a = w->request(L("verify"), {{L("seed"), 9}, {L("output"), dir.filePath(L("o.bin"))}});
        QVERIFY(one_line_error(a));
        QVERIFY(a.value(L("error")).toString().contains(L("not a copy")));
        QCOMPARE(w->finish(), 0);
        QVERIFY2(w->faults().isEmpty(), qPrintable(w->faults().join(L("; "))));
    }

    // The C++ header reads f64, f16 and bf16 outputs (host memory here) into the float32 file.
    void cpp_output_dtypes_data()
    {
        QTest::addColumn<QString>("dtype");
        for (const char* d : {"f32", "f64", "f16", "bf16"})
            QTest::addRow("%s", d) << L(d);
    }
    void cpp_output_dtypes()
    {
        QFETCH(QString, dtype);
        WorkerSession w(QStringLiteral(KWB_NOISY_CPP_WORKER), {});
        QVERIFY(w.started());
        QCOMPARE(
            w.request(L("prepare"), {{L("params"), QJsonObject {{L("dtype"), dtype}}}, {L("seed"), 5}}).value(L("ok")),
            QJsonValue(true));
        QTemporaryDir dir;
        const auto a = w.request(L("verify"), {{L("seed"), 10}, {L("output"), dir.filePath(L("o.bin"))}});
        QCOMPARE(a.value(L("reference")).toObject().value(L("passed")), QJsonValue(true));
        QCOMPARE(read_output(dir.filePath(L("o.bin")), 4), (QVector<float> {3, 4, 5, 6}));
        QCOMPARE(w.finish(), 0);
        QVERIFY2(w.faults().isEmpty(), qPrintable(w.faults().join(L("; "))));
    }

    // A user file that does not import still gets a worker that says why, on every request.
    void python_import_failure_is_answered()
    {
        auto w = start(python_worker(QStringLiteral(KWB_WORKER_TEST_DATA "/broken_kernel.py")));
        QVERIFY(w->started());
        const auto a = w->request(L("hello"), {{L("protocol"), 1}});
        QVERIFY(one_line_error(a));
        QVERIFY2(a.value(L("error")).toString().contains(L("loading broken_kernel.py failed: ModuleNotFoundError")),
            qPrintable(a.value(L("error")).toString()));
        QVERIFY(one_line_error(w->request(L("describe"))));
        QCOMPARE(w->request(L("release")).value(L("ok")), QJsonValue(true));
        QCOMPARE(w->wait_exit(), 0);
        QVERIFY2(w->faults().isEmpty(), qPrintable(w->faults().join(L("; "))));
    }
};

QTEST_GUILESS_MAIN(TestWorkerProtocol)
#include "tst_worker_protocol.moc"
