// SPDX-License-Identifier: GPL-3.0-or-later
// The stored grid interaction is a typed record with one codec: the study's grid fixture reads into
// fields and writes back the same object; a malformed field is an error naming its path.
#include "study/study_file.h"
#include "study/study_json.h"
#include "util/atomic_file.h"

#include <QTest>

using namespace kwb;

class TestGridInteractionRecord : public QObject {
    Q_OBJECT
private slots:
    void fixtureReadsIntoFieldsAndBack()
    {
        const std::string text = read_file(KWB_TEST_DATA_DIR "/studies/grid.json");
        const auto stored = nlohmann::json::parse(text).at("grids").at(0).at("interaction");
        const Study s = parse_study(text, "grid.json");
        QCOMPARE(s.grids.size(), size_t {1});
        const auto& in = s.grids[0].interaction;
        QVERIFY(in.has_value());
        QVERIFY(in->two_by_two());
        QCOMPARE(in->contrasts.size(), size_t {1});
        QCOMPARE(in->contrasts[0].experiment, std::string("grid-1-r1c1"));
        QCOMPARE(in->contrasts[0].row, 1);
        QCOMPARE(*in->difference_of_differences_pct, stored.at("difference_of_differences_pct").get<double>());
        QCOMPARE((*in->ci95)[1], stored.at("ci95").at(1).get<double>());
        QCOMPARE(in->df_residual, stored.at("df").at(1).get<int>());
        QCOMPARE(in->summary, stored.at("summary").get<std::string>());
        // Written back, the object is the one stored, key for key.
        QCOMPARE(QString::fromStdString(to_json(*in).dump()), QString::fromStdString(stored.dump()));
    }

    void malformedFieldsNameTheirPath_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("field");
        QTest::addRow("ci95 of one number") << "ci95"
                                            << "[1]"
                                            << "grids[0].interaction.ci95";
        QTest::addRow("df of text") << "df"
                                    << "[\"one\", 30]"
                                    << "grids[0].interaction.df";
        QTest::addRow("flagged as a word") << "flagged"
                                           << "\"yes\""
                                           << "grids[0].interaction.flagged";
        QTest::addRow("direction unknown") << "direction"
                                           << "\"sideways\""
                                           << "grids[0].interaction.direction";
        QTest::addRow("contrasts not a list") << "contrasts"
                                              << "{}"
                                              << "grids[0].interaction.contrasts";
    }

    void malformedFieldsNameTheirPath()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, field);
        auto doc = nlohmann::json::parse(read_file(KWB_TEST_DATA_DIR "/studies/grid.json"));
        doc["grids"][0]["interaction"][key.toStdString()] = nlohmann::json::parse(value.toStdString());
        try {
            (void)parse_study(doc.dump(), "grid.json");
            QFAIL("a malformed interaction was accepted");
        } catch (const std::exception& e) {
            QVERIFY2(std::string(e.what()).find(field.toStdString()) != std::string::npos, e.what());
        }
    }

    void nullIsNotYetJudged()
    {
        auto doc = nlohmann::json::parse(read_file(KWB_TEST_DATA_DIR "/studies/grid.json"));
        doc["grids"][0]["interaction"] = nullptr;
        const Study s = parse_study(doc.dump(), "grid.json");
        QVERIFY(!s.grids[0].interaction);
    }
};

QTEST_GUILESS_MAIN(TestGridInteractionRecord)
#include "tst_grid_interaction_record.moc"
