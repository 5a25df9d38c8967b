// Every setting of the table (core/settings.h) round-trips through the three front
// ends with the same range: command-line flags (ScenarioOptions), scenario files
// (io/scenariofile) and the window's controls (AdvancedPanel, MainWindow), and the
// README's flag table is the one the table generates.
#include "mainwindow.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "settings.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

using namespace shardscope;

namespace {

/// The values each setting is walked through, in storage units: both ends of its
/// range, a middle value and its default (only values the table accepts).
std::vector<std::int64_t> walkValues(const Setting &s)
{
    std::vector<std::int64_t> out;
    const std::int64_t mid = (s.displayMin() + s.displayMax()) / 2 * s.scale;
    for (const std::int64_t v :
         {s.displayMin() * s.scale, s.displayMax() * s.scale, mid, s.get(defaultScenario())})
        if (checkSettingValue(s, v).empty())
            out.push_back(v);
    for (std::string_view allowed : s.choices)
        if (s.kind == SettingKind::Integer)
            out.push_back(std::stoll(std::string(allowed)));
    return out;
}

/// Parses `report <args>` without validating the layout (extreme single values make
/// impossible layouts; this checks the flag, not the layout).
std::optional<ScenarioDocument> fromFlags(const QStringList &args, QString *error)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    options.addTo(p);
    if (!p.parse(QStringList{QStringLiteral("shardscope")} + args)) {
        *error = p.errorText();
        return std::nullopt;
    }
    return options.document(p, error, false);
}

} // namespace

class TestSettingsTable : public QObject
{
    Q_OBJECT
private slots:
    void flagsTakeTheTableRange()
    {
        for (const Setting &s : settings()) {
            const QString flag = QStringLiteral("--") + toQString(s.flag);
            for (const std::int64_t v : walkValues(s)) {
                QString error;
                const QStringList args = s.isSwitch
                                             ? QStringList{flag}
                                             : QStringList{flag, toQString(settingText(s, v))};
                if (s.isSwitch && v == 0)
                    continue; // a switch can only turn on
                const auto doc = fromFlags(args, &error);
                QVERIFY2(doc, qPrintable(args.join(u' ') + QStringLiteral(": ") + error));
                QCOMPARE(s.get(doc->scenario), v);
            }
            if (s.kind == SettingKind::Integer && s.choices.empty()) {
                QString error;
                QVERIFY(!fromFlags({flag, QString::number(s.displayMax() + 1)}, &error));
                QVERIFY2(error.startsWith(flag + QStringLiteral(" must be a whole number from ")),
                         qPrintable(error));
                if (s.displayMin() > 0) {
                    QVERIFY(!fromFlags({flag, QString::number(s.displayMin() - 1)}, &error));
                    QVERIFY2(error.startsWith(flag), qPrintable(error));
                }
            }
        }
    }

    void filesTakeTheTableRange()
    {
        const ScenarioDocument start{defaultScenario(), ByteUnit::GB};
        for (const Setting &s : settings()) {
            for (const std::int64_t v : walkValues(s)) {
                Scenario sc = defaultScenario();
                s.set(sc, v);
                // Written by scenarioToJson and read back: the same value.
                const QJsonObject json = scenarioToJson(sc, ByteUnit::GB);
                QString error;
                const auto back = applyScenarioPatch(
                    start, json, QStringLiteral("t.json"), &error,
                    {QStringLiteral("schema"), QStringLiteral("version")}, false);
                QVERIFY2(back, qPrintable(error));
                QCOMPARE(s.get(back->scenario), v);
            }
            // One past the top, where a JSON number (a double) can tell it from the top.
            if (s.kind == SettingKind::Integer && s.choices.empty() &&
                double(s.max + 1) != double(s.max)) {
                QString error;
                const QJsonObject past{{toQString(s.key), qint64(s.max) + 1}};
                QVERIFY(
                    !applyScenarioPatch(start, past, QStringLiteral("t.json"), &error, {}, false));
                QCOMPARE(error, QStringLiteral("t.json: \"%1\" must be a whole number from %2 to "
                                               "%3 (got %4)")
                                    .arg(toQString(s.key))
                                    .arg(s.min)
                                    .arg(s.max)
                                    .arg(QString::number(double(s.max + 1), 'g', 15)));
            }
        }
    }

    void windowControlsTakeTheTableRange()
    {
        MainWindow w;
        for (const Setting &s : settings()) {
            QWidget *control =
                w.findChild<QWidget *>(QStringLiteral("setting:") + toQString(s.key));
            QVERIFY2(control, s.key.data());
            if (s.key == "strategy") {
                // The headline buttons: one per choice, checking one sets the stage.
                const auto buttons = control->findChildren<QPushButton *>();
                QCOMPARE(buttons.size(), qsizetype(s.choices.size()));
                buttons.at(2)->click();
                QCOMPARE(w.session()->scenario().layout.zeroStage, ZeroStage::Zero2);
                continue;
            }
            for (const std::int64_t v : walkValues(s)) {
                if (auto *spin = qobject_cast<QSpinBox *>(control)) {
                    QCOMPARE(spin->minimum(), int(s.displayMin()));
                    QCOMPARE(spin->maximum(), int(s.displayMax()));
                    spin->setValue(int(v / s.scale));
                } else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(control)) {
                    QCOMPARE(dspin->minimum(), double(s.displayMin()));
                    QCOMPARE(dspin->maximum(), double(s.displayMax()));
                    QCOMPARE(dspin->decimals(), 0);
                    dspin->setValue(double(v / s.scale));
                } else if (auto *combo = qobject_cast<QComboBox *>(control)) {
                    QCOMPARE(combo->count(), qsizetype(s.choices.size()));
                    const int i = combo->findData(int(v));
                    QVERIFY(i >= 0);
                    combo->setCurrentIndex(i);
                    emit combo->activated(i);
                } else if (auto *box = qobject_cast<QCheckBox *>(control)) {
                    box->setChecked(v != 0);
                } else {
                    QFAIL(qPrintable(QStringLiteral("no known control for ") + toQString(s.key)));
                }
                if (s.key == "gpus" || s.key == "tp" || s.key == "pp" || s.key == "cp") {
                    // Degrees move the world size with them; the field itself is set.
                    QCOMPARE(s.get(w.session()->scenario()), std::min(v, s.max));
                    continue;
                }
                QCOMPARE(s.get(w.session()->scenario()), v);
            }
        }
    }

    void windowStartsOnTheSameGpusWithAndWithoutFlags()
    {
        // shardscope-gui with scenario flags sets the window's scenario from them over
        // defaultScenario() (app/guimain.cpp); without, the window keeps the Session's
        // own start. Both are core/defaults.h's: 64 GPUs.
        const MainWindow plain;
        QCOMPARE(qint64(plain.session()->scenario().layout.gpus), 64LL);
        QCOMPARE(plain.session()->scenario().layout.zeroStage, ZeroStage::Ddp);
        QString error;
        const auto doc = fromFlags({QStringLiteral("--strategy"), QStringLiteral("zero3")}, &error);
        QVERIFY2(doc, qPrintable(error));
        MainWindow flagged;
        flagged.session()->setScenario(doc->scenario);
        QCOMPARE(qint64(flagged.session()->scenario().layout.gpus), 64LL);
        QCOMPARE(flagged.session()->scenario().layout.zeroStage, ZeroStage::Zero3);
        // Only the strategy differs: every table setting but "strategy" is the plain window's.
        for (const Setting &s : settings())
            if (s.key != "strategy")
                QVERIFY2(s.get(flagged.session()->scenario()) == s.get(plain.session()->scenario()),
                         s.key.data());
        QCOMPARE(flagged.session()->scenario().model.id, plain.session()->scenario().model.id);
        QCOMPARE(flagged.session()->scenario().gpu.id, plain.session()->scenario().gpu.id);
        QCOMPARE(flagged.session()->scenario().recipe.id, plain.session()->scenario().recipe.id);
    }

    void readmeListsEveryFlag()
    {
        QFile readme(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/README.md"));
        QVERIFY(readme.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(readme.readAll());
        const QString rows = settingsMarkdownRows();
        // SHARDSCOPE_README_ROWS=FILE writes the rows there, to paste into README.md.
        if (const QString out = qEnvironmentVariable("SHARDSCOPE_README_ROWS"); !out.isEmpty()) {
            QFile f(out);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(rows.toUtf8());
        }
        QVERIFY2(text.contains(rows), "README.md's flag table is out of date: run this test with "
                                      "SHARDSCOPE_README_ROWS=rows.md and paste rows.md into it");
    }
};

QTEST_MAIN(TestSettingsTable)
#include "test_settingstable.moc"
