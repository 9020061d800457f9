// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/study_document.h"

#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using kwb::gui::StudyDocument;

class TestStudyDocument : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void demoLoadsAndHasAFinishedExperiment();
    void demoCopyNeverOverwritesTheUsersCopy();
    void saveAsThenReloadRoundTrips();
    void failedLoadKeepsTheOpenStudy();
    void lockedDocumentRefusesToSave();
    void currentExperimentIsTheLastWithSamples();
    void rerunOfAFinishedExperiment();
};

void TestStudyDocument::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QFile::remove(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + u"/demo.json"_s);
}

void TestStudyDocument::demoLoadsAndHasAFinishedExperiment()
{
    QFile demo(StudyDocument::demoResourcePath());
    QVERIFY(demo.open(QIODevice::ReadOnly));
    StudyDocument doc;
    QSignalSpy changed(&doc, &StudyDocument::changed);
    QVERIFY2(doc.loadFromText(demo.readAll(), u"demo"_s), qPrintable(doc.lastError()));
    QCOMPARE(changed.count(), 1);
    QVERIFY(doc.filePath().isEmpty());
    const kwb::Experiment* e = doc.currentExperiment();
    QVERIFY(e);
    QVERIFY(kwb::judged_values(*e, "baseline", e->metric).size() >= 3);
    QVERIFY(kwb::judged_values(*e, "treatment", e->metric).size() >= 3);
    QVERIFY(e->verdict.has_value());
    QVERIFY(e->final_verdict.has_value());
    QVERIFY(!e->lanes.empty());
}

void TestStudyDocument::demoCopyNeverOverwritesTheUsersCopy()
{
    QString error;
    const QString copy = StudyDocument::ensureDemoCopy(&error);
    QVERIFY2(!copy.isEmpty(), qPrintable(error));
    StudyDocument doc;
    QVERIFY2(doc.load(copy), qPrintable(doc.lastError()));
    doc.mutableStudy().name = "my edited demo";
    QVERIFY(doc.save());
    QCOMPARE(StudyDocument::ensureDemoCopy(&error), copy);
    QVERIFY(doc.reload());
    QCOMPARE(doc.study().name, std::string("my edited demo"));
    QFile::remove(copy);
}

void TestStudyDocument::saveAsThenReloadRoundTrips()
{
    QTemporaryDir dir;
    StudyDocument doc;
    QSignalSpy modified(&doc, &StudyDocument::modifiedChanged);
    doc.newStudy();
    QVERIFY(doc.isModified());
    QCOMPARE(doc.study().tradeoffs.size(), kwb::tradeoff_axes().size());
    QVERIFY(!doc.save()); // no file yet
    const QString path = dir.filePath(u"s.json"_s);
    QVERIFY2(doc.saveAs(path), qPrintable(doc.lastError()));
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.filePath(), path);
    QVERIFY(modified.count() >= 2);
    doc.mutableStudy().name = "renamed";
    doc.markModified();
    QVERIFY(doc.save());
    StudyDocument other;
    QVERIFY(other.load(path));
    QCOMPARE(other.study().name, std::string("renamed"));
}

void TestStudyDocument::failedLoadKeepsTheOpenStudy()
{
    QTemporaryDir dir;
    StudyDocument doc;
    doc.newStudy();
    QVERIFY(doc.saveAs(dir.filePath(u"good.json"_s)));
    QFile bad(dir.filePath(u"bad.json"_s));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"schema_version\": 2, \"name\": 5}");
    bad.close();
    QVERIFY(!doc.load(bad.fileName()));
    QVERIFY(!doc.lastError().isEmpty());
    QVERIFY(!doc.lastError().contains(u'\n'));
    QCOMPARE(doc.filePath(), dir.filePath(u"good.json"_s));
    QVERIFY(!doc.load(dir.filePath(u"missing.json"_s)));
}

void TestStudyDocument::lockedDocumentRefusesToSave()
{
    QTemporaryDir dir;
    StudyDocument doc;
    doc.newStudy();
    QVERIFY(doc.saveAs(dir.filePath(u"s.json"_s)));
    doc.setLocked(true);
    doc.markModified();
    QVERIFY(!doc.save());
    QVERIFY(doc.lastError().contains(u"run"_s));
    doc.setLocked(false);
    QVERIFY(doc.save());
}

void TestStudyDocument::currentExperimentIsTheLastWithSamples()
{
    StudyDocument doc;
    doc.newStudy();
    QCOMPARE(doc.currentExperimentIndex(), -1);
    QVERIFY(!doc.currentExperiment());
    auto& ex = doc.mutableStudy().experiments;
    ex.resize(3);
    ex[0].id = "a";
    ex[1].id = "b";
    ex[2].id = "c";
    QCOMPARE(doc.currentExperimentIndex(), 0);
    ex[1].samples.push_back(kwb::Sample {});
    QCOMPARE(doc.currentExperimentIndex(), 1);
}

void TestStudyDocument::rerunOfAFinishedExperiment()
{
    StudyDocument doc;
    doc.newStudy();
    QVERIFY(!doc.hasRunnableExperiment());
    kwb::Experiment done;
    done.id = "ab-1";
    done.status = kwb::ExperimentStatus::Done;
    done.arms = {{"baseline", {{"block", 32}}}, {"treatment", {{"block", 128}}}};
    done.samples.resize(4);
    done.lanes.resize(1);
    done.verdict = kwb::SampleVerdict {};
    done.verdict->word = kwb::VerdictWord::License;
    doc.mutableStudy().experiments.push_back(done);
    QVERIFY(!doc.hasRunnableExperiment());
    QCOMPARE(doc.appendRerun(0), u"ab-2"_s);
    QCOMPARE(doc.appendRerun(0), u"ab-3"_s);
    QVERIFY(doc.isModified());
    QVERIFY(doc.hasRunnableExperiment());
    const auto& again = doc.study().experiments.at(1);
    QCOMPARE(again.status, kwb::ExperimentStatus::Pending);
    QVERIFY(again.samples.empty() && again.lanes.empty() && !again.verdict.has_value());
    QCOMPARE(again.arms.at(1).params.at("block").get<int>(), 128);
    QCOMPARE(doc.study().experiments.at(0).samples.size(), size_t {4}); // the earlier attempt is kept
    QCOMPARE(doc.appendRerun(7), QString());
}

QTEST_GUILESS_MAIN(TestStudyDocument)
#include "tst_study_document.moc"
