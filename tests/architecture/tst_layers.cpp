// SPDX-License-Identifier: GPL-3.0-or-later
// The layers of docs/architecture.md hold on the source tree, and the check can fail: a planted
// include from a lower layer into a higher one is reported, in a tree made for the purpose.
#include "layer_check.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb::layers;

namespace {

// What the window still takes from above the analysis library, each with the reason; listed in
// docs/architecture.md. The check reports any other include and any entry here that is gone.
// The widgets' includes from above the analysis library that are still allowed, with their reason.
// Issue 25 paid the last of them (the workload descriptions moved into the analysis library, Test
// once asks kwb); the list only shrinks, and the check fails on an entry that is no longer true.
const std::vector<Debt> kWidgetDebts {};

void write(const QTemporaryDir& dir, const QByteArray& path, const QByteArray& text)
{
    const QString full = dir.filePath(QString::fromUtf8(path));
    QVERIFY(QDir().mkpath(QFileInfo(full).path()));
    QFile f(full);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

// A small tree with each layer: engine/study (analysis), engine/run (engine), kernels, widgets.
void plantTree(const QTemporaryDir& dir)
{
    write(dir, "engine/study/CMakeLists.txt", "target_sources(kwb_analysis PRIVATE study.cpp)\n");
    write(dir, "engine/study/study.h", "#pragma once\n#include <vector>\n");
    write(dir, "engine/study/study.cpp", "#include \"study/study.h\"\n");
    write(dir, "engine/run/CMakeLists.txt",
        "target_sources(kwb_engine PRIVATE runner.cpp)\n"
        "target_sources(kwb_analysis PRIVATE history.cpp)\n");
    write(dir, "engine/run/runner.h", "#pragma once\n#include \"study/study.h\"\n");
    write(dir, "engine/run/runner.cpp", "#include \"run/runner.h\"\n");
    write(dir, "engine/run/history.cpp", "#include \"study/study.h\"\n");
    write(dir, "engine/run/observer.h", "#pragma once\n");
    write(dir, "kernels/gemm.cpp", "#include \"run/runner.h\"\n");
    write(dir, "widgets/models/doc.h", "#pragma once\n#include \"study/study.h\"\n");
}

std::string joined(const std::vector<std::string>& lines)
{
    std::string out;
    for (const auto& l : lines)
        out += l + "\n";
    return out;
}

} // namespace

class TestLayers : public QObject {
    Q_OBJECT
private slots:
    void theSourceTreeKeepsItsLayers()
    {
        Checker checker(std::filesystem::canonical(KWB_SOURCE_DIR));
        const auto found = checker.violations(kWidgetDebts);
        QVERIFY2(found.empty(), joined(found).c_str());
    }

    void aCleanTreePasses()
    {
        QTemporaryDir dir;
        plantTree(dir);
        Checker checker(std::filesystem::canonical(dir.path().toStdString()));
        const auto found = checker.violations();
        QVERIFY2(found.empty(), joined(found).c_str());
        QCOMPARE(checker.layer_of("engine/run/runner.cpp"), std::string("kwb_engine"));
        QCOMPARE(checker.layer_of("engine/run/history.cpp"), std::string("kwb_analysis"));
    }

    void plantedIncludesAreReported_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("expected");
        QTest::addRow("engine includes the window")
            << QByteArray("engine/study/study.cpp") << QByteArray("#include \"models/doc.h\"\n")
            << QByteArray("kwb_analysis includes \"models/doc.h\"");
        QTest::addRow("analysis includes the engine")
            << QByteArray("engine/run/history.cpp") << QByteArray("#include \"run/runner.h\"\n")
            << QByteArray("kwb_analysis includes \"run/runner.h\"");
        QTest::addRow("analysis reaches the engine through a header")
            << QByteArray("engine/study/study.cpp") << QByteArray("#include \"run/observer.h\"\n") << QByteArray("");
        QTest::addRow("the window includes a kernel")
            << QByteArray("widgets/models/doc.h") << QByteArray("#pragma once\n#include \"gemm.cpp\"\n")
            << QByteArray("widgets includes \"gemm.cpp\"");
        QTest::addRow("the window includes the runner")
            << QByteArray("widgets/models/doc.h") << QByteArray("#include \"run/runner.h\"\n")
            << QByteArray("widgets includes \"run/runner.h\"");
        QTest::addRow("the engine includes Qt")
            << QByteArray("engine/run/runner.cpp") << QByteArray("#include <QString>\n")
            << QByteArray("the engine includes <QString>");
        QTest::addRow("the engine includes CUDA")
            << QByteArray("engine/study/study.h") << QByteArray("#include <cuda_runtime.h>\n")
            << QByteArray("the engine includes <cuda_runtime.h>");
    }

    void plantedIncludesAreReported()
    {
        QFETCH(QByteArray, file);
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, expected);
        QTemporaryDir dir;
        plantTree(dir);
        write(dir, file, text);
        if (expected.isEmpty()) { // observer.h: a header that includes the runner, included by analysis code
            write(dir, "engine/run/observer.h", "#pragma once\n#include \"run/runner.h\"\n");
            expected = "engine/run/observer.h:2: kwb_analysis includes \"run/runner.h\"";
        }
        Checker checker(std::filesystem::canonical(dir.path().toStdString()));
        const std::string found = joined(checker.violations());
        QVERIFY2(found.find(expected.toStdString()) != std::string::npos, found.c_str());
    }

    void aPaidDebtMustLeaveTheList()
    {
        QTemporaryDir dir;
        plantTree(dir);
        Checker checker(std::filesystem::canonical(dir.path().toStdString()));
        const std::string found
            = joined(checker.violations({{"widgets/models/doc.h", "engine/run/runner.h", "paid already"}}));
        QVERIFY2(found.find("listed debt no longer exists") != std::string::npos, found.c_str());
    }
};

QTEST_GUILESS_MAIN(TestLayers)
#include "tst_layers.moc"
