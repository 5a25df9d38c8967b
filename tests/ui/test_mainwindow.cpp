// Drives the window's controls programmatically and checks what the chart and
// the verdict show (core/defaults.h: DDP overflows a 70B, ZeRO-3 fits on 64 H100s).
#include "../testfiles.h"
#include "../testsupport.h"
#include "advancedpanel.h"
#include "blankscreen.h"
#include "breakdownview.h"
#include "chartregistry.h"
#include "comparechart.h"
#include "defaults.h"
#include "exportslidedialog.h"
#include "lesson.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "numberstable.h"
#include "qtext.h"
#include "reporttable.h"
#include "scenariochangecommand.h"
#include "scenariofile.h"
#include "timelinepanel.h"
#include "widgettest.h"

#include <QAbstractButton>
#include <QAccessible>
#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDropEvent>
#include <QFontInfo>
#include <QImage>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMimeData>
#include <QPieSeries>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>
#include <QUrl>
#include <QWheelEvent>
#include <QtTest/qtestspontaneevent.h>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

/// The GPU slider's position of `count` among gpuSliderCounts(multiple) (core/defaults.h),
/// or -1 when the slider does not step through it.
int sliderIndexOf(std::int64_t count, std::int64_t multiple = 1)
{
    const std::vector<std::int64_t> counts = gpuSliderCounts(multiple);
    const auto it = std::find(counts.begin(), counts.end(), count);
    return it == counts.end() ? -1 : int(it - counts.begin());
}

/// The whole scenario and unit as scenario-file JSON: equal text, equal settings.
QByteArray scenarioJson(const MainWindow &w)
{
    return QJsonDocument(scenarioToJson(w.session()->scenario(), w.session()->unit()))
        .toJson(QJsonDocument::Compact);
}

QByteArray scenarioJson(const ScenarioDocument &doc)
{
    return QJsonDocument(scenarioToJson(doc.scenario, doc.unit)).toJson(QJsonDocument::Compact);
}

/// The window's button with exactly this text (nullptr when none).
QPushButton *buttonWithText(const QWidget &w, const QString &text)
{
    for (QPushButton *b : w.findChildren<QPushButton *>())
        if (b->text() == text)
            return b;
    return nullptr;
}

/// Opens the collapsed "Advanced" settings under the headline controls.
/// Shows `w` at `size`, makes it the active window and waits until it is.
void showActive(MainWindow &w, QSize size)
{
    w.resize(size);
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
}

void expandAdvanced(MainWindow &w)
{
    for (QToolButton *b : w.findChildren<QToolButton *>())
        if (b->text().startsWith(QStringLiteral("Advanced")) && !b->isChecked())
            b->click();
}

/// The scroll area holding the left control column.
QScrollArea *controlScroll(const MainWindow &w)
{
    for (QScrollArea *a : w.findChildren<QScrollArea *>())
        if (a->isAncestorOf(w.gpuSpin()))
            return a;
    return nullptr;
}

/// Lets every pending layout pass run: a label's new text re-lays its bar, which then
/// re-lays the column holding it, each in a later pass of the event loop.
void settleLayouts()
{
    for (int i = 0; i < 4; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::processEvents();
    }
}

/// The number of built-in lessons (what the Lessons menu lists).
int lessonCountOf()
{
    return int(builtInLessons().size());
}

/// True when the widget sits in a scrolling column (the panel, the donut, the timeline).
bool insideScrollArea(const QWidget *w)
{
    for (const QWidget *p = w->parentWidget(); p; p = p->parentWidget())
        if (qobject_cast<const QScrollArea *>(p))
            return true;
    return false;
}

/// WCAG 2.1 relative luminance of an sRGB colour (0 black .. 1 white).
double relativeLuminance(QColor c)
{
    auto channel = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

/// WCAG 2.1 contrast ratio (L1 + 0.05) / (L2 + 0.05), lighter over darker: 1 .. 21.
double contrastRatio(double l1, double l2)
{
    return (std::max(l1, l2) + 0.05) / (std::min(l1, l2) + 0.05);
}

/// The median relative luminance of a button's face as drawn: its pixels inside a
/// 5-pixel inset (off the frame), so neither the label nor a gradient decides it.
double faceLuminance(QWidget *button)
{
    const QImage image = button->grab().toImage();
    std::vector<double> l;
    for (int y = 5; y < image.height() - 5; ++y)
        for (int x = 5; x < image.width() - 5; ++x)
            l.push_back(relativeLuminance(image.pixelColor(x, y)));
    if (l.empty())
        return -1;
    std::nth_element(l.begin(), l.begin() + std::ptrdiff_t(l.size() / 2), l.end());
    return l[l.size() / 2];
}

/// A wheel turn of one notch (120 eighths of a degree) down at the widget's centre, as
/// the window system delivers it (spontaneous: ignored, it goes on to the parents).
void wheelDown(QWidget *target)
{
    const QPointF local = QRectF(target->rect()).center();
    QWheelEvent e(local, target->mapToGlobal(local), QPoint(), QPoint(0, -120), Qt::NoButton,
                  Qt::NoModifier, Qt::NoScrollPhase, false);
    QSpontaneKeyEvent::setSpontaneous(&e);
    QApplication::instance()->notify(target, &e);
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void startsOnSeventyBOverflowingUnderDdp();
    void numbersTableCopiesAndExports();
    void slidesShowNoLiveControls();
    void presentationTypeFillsTheRoom();
    void fineTuningChoiceInFront();
    void strategyButtonsReachZero3Fit();
    void gpuSliderUpdatesWhileDragging();
    void modelSliderScalesAnArchitecture();
    void modelDescriptionFollowsTheRelease();
    void presetSnapsTheSlider();
    void spinBoxAndSliderAgree();
    void recipeBytesAreEditable();
    void unitSwitchRedrawsInGib();
    void groupsWhenTooManyGpus();
    void advancedLayoutMakesStages();
    void timelineAndAdvancedEditTheSameSettings();
    void eagerLossRaisesTheLastStage();
    void customRecipeAndGpuAreNamed();
    void longLessonTitlesWrap();
    void impossibleLayoutSaysWhy();
    void breakdownShowsTheSelectedStage();
    void presentationModeAndThemes();
    void customModelNamesItself();
    void tabsShareTheScenario();
    void lessonsStepThroughTheSeeds();
    void scenarioSaveOpenAndBadFiles();
    void opensLaunchConfigs();
    void exportsTheCurrentChart();
    void lessonKeysWorkWhateverHasFocus();
    void lessonButtonsStayPut();
    void lessonKeysLeaveTextFieldsAlone();
    void lessonFileOpensAndShowsItsOwnText();
    void authoredLessonRoundTrip();
    void lessonChartKeepsOneScale();
    void lessonChartGhostsThePreviousStep();
    void lessonTextReadsAt1280x720();
    void wheelLeavesUnfocusedControlsAlone();
    void typedGpuCountIsExact();
    void selectedStrategyStandsOut();
    void slidersNameTheirValues();
    void worksAt1280x720();
    void lessonStepSaysWhatChanged();
    void undoRedoAndReset();
    void copiesTheCommandLine();
    void exportsAnHtmlPage();
    void summaryCountsEveryNote();
    void blankScreenAndControlColumn();
    void batchControlsInFront();
    void controlColumnNeverScrollsSideways();
    void oneGpuIsSingular();
};

void TestMainWindow::startsOnSeventyBOverflowingUnderDdp()
{
    MainWindow w;
    QCOMPARE(w.modelCombo()->currentData().toString(), QStringLiteral("llama3-70b"));
    QCOMPARE(w.gpuSpin()->value(), 64);
    // Llama 3 70B: 70,553,706,496 x 16 B = 1,128.86 GB of model states per GPU under DDP,
    // plus 7.60 GB of activations (tests/app/test_reportcommand.cpp writes them out),
    // 0.54 GB CUDA context, a 25 MiB DDP bucket, and 5 % fragmentation reserve:
    // (1,128.86 + 7.60 + 0.537 + 0.026) x 1.05 = 1,193.87 GB, 1,108.4 GB over the
    // H100's usable 81,559 MiB = 85.52 GB.
    QCOMPARE(w.verdictSentence(),
             QStringLiteral("Overflows by 1,108 GB per GPU: DDP keeps a full copy on every GPU"));
    // The headline in the verdict's type, the reason under it.
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Overflows by 1,108 GB per GPU"));
    QCOMPARE(w.verdictReasonLabel()->text(), QStringLiteral("DDP keeps a full copy on every GPU"));
    QCOMPARE(w.chart()->barCount(), 1);
    const MemoryReport &r = w.session()->report();
    QCOMPARE(w.chart()->stackTop(0), double(r.peakBytes()) / 1e9);
    QCOMPARE(w.chart()->componentHeight(0, Component::Weights), 70553706496.0 * 2 / 1e9);
    QCOMPARE(w.chart()->componentHeight(0, Component::Activations), 7604273152.0 / 1e9);
    // The line at the H100's usable 81,559 MiB = 85,520,809,984 bytes.
    QCOMPARE(w.chart()->capacityValue(), 85.520809984);
    // The model-states-only view is 16 bytes per parameter exactly (ZeRO paper, Figure 1).
    w.modelStatesOnlyBox()->setChecked(true);
    QCOMPARE(w.chart()->stackTop(0), 70553706496.0 * 16 / 1e9);
}

void TestMainWindow::strategyButtonsReachZero3Fit()
{
    MainWindow w;
    w.modelStatesOnlyBox()->setChecked(true);
    w.modelCombo()->setCurrentIndex(w.modelCombo()->findData(QStringLiteral("plain-70b")));
    emit w.modelCombo()->activated(w.modelCombo()->currentIndex());
    const double expected[] = {1120, 293.125, 155.3125,
                               17.5}; // 16 B x 70e9 / 1, / 64 with ZeRO-1, -2, -3 shards
    for (int z = 0; z <= 3; ++z) {
        w.strategyButtons()->button(z)->click();
        QCOMPARE(int(w.session()->scenario().layout.zeroStage), z);
        QCOMPARE(w.chart()->stackTop(0), expected[z]);
    }
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 17.5 GB of 85.5 GB usable per GPU"));
    // The bar's parts are the sharded components: 2 + 2 + 4 + 8 bytes x 70e9 / 64.
    QCOMPARE(w.chart()->componentHeight(0, Component::Weights), 2.1875);
    QCOMPARE(w.chart()->componentHeight(0, Component::OptimizerStates), 8.75);
}

void TestMainWindow::gpuSliderUpdatesWhileDragging()
{
    MainWindow w;
    w.modelStatesOnlyBox()->setChecked(true);
    w.modelCombo()->setCurrentIndex(w.modelCombo()->findData(QStringLiteral("plain-70b")));
    emit w.modelCombo()->activated(w.modelCombo()->currentIndex());
    w.strategyButtons()->button(3)->click();
    const int at8 = sliderIndexOf(8), at16 = sliderIndexOf(16);
    QVERIFY(at8 >= 0 && at16 > at8);
    w.gpuSlider()->setSliderDown(true); // a drag in progress: no release yet
    w.gpuSlider()->setValue(at8);
    QCOMPARE(w.chart()->stackTop(0), 140.0); // 16 B x 70e9 / 8 = 140 GB
    // 140e9 - 85,520,809,984 usable = 54,479,190,016 bytes over.
    QVERIFY(w.verdictLabel()->text().startsWith(QStringLiteral("Overflows by 54.5 GB per GPU")));
    w.gpuSlider()->setValue(at16);
    QCOMPARE(w.chart()->stackTop(0), 70.0);
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 70 GB of 85.5 GB usable per GPU"));
    QCOMPARE(w.gpuSpin()->value(), 16);
    w.gpuSlider()->setSliderDown(false);
}

void TestMainWindow::modelSliderScalesAnArchitecture()
{
    MainWindow w;
    const int pos = MainWindow::modelSliderPosition(7'000'000'000);
    w.modelSlider()->setValue(pos);
    QVERIFY(w.session()->modelIsScaled());
    QCOMPARE(w.modelCombo()->currentData().toString(), QStringLiteral("scaled"));
    QVERIFY(w.modelInfoLabel()->text().startsWith(
        QStringLiteral("Scaled Llama-style shape, not a published model")));
    const auto params = w.session()->scenario().model.parameters();
    QVERIFY(params > 6'000'000'000 && params < 8'000'000'000);
    QCOMPARE(w.chart()->componentHeight(0, Component::OptimizerStates), double(params) * 8 / 1e9);
    QVERIFY(w.chart()->componentHeight(0, Component::Activations) > 0); // it has a shape
    // Slider ends: 0.1B and 2T.
    QCOMPARE(MainWindow::modelSliderParameters(0), 100'000'000LL);
    QCOMPARE(MainWindow::modelSliderParameters(MainWindow::modelSliderSteps), 2'000'000'000'000LL);
}

void TestMainWindow::modelDescriptionFollowsTheRelease()
{
    MainWindow w;
    const QString preset = w.modelInfoLabel()->text();
    QVERIFY(preset.startsWith(QStringLiteral("80 layers, hidden 8,192"))); // Llama 3 70B
    // A drag: the parameter count, the verdict and the bars follow every step; the
    // five-line description waits for the release.
    w.modelSlider()->setSliderDown(true);
    w.modelSlider()->setValue(MainWindow::modelSliderPosition(7'000'000'000));
    QVERIFY(w.session()->modelIsScaled());
    const std::int64_t params = w.session()->scenario().model.parameters();
    QVERIFY(params > 6'000'000'000 && params < 8'000'000'000);
    QCOMPARE(w.chart()->componentHeight(0, Component::OptimizerStates), double(params) * 8 / 1e9);
    QCOMPARE(w.modelInfoLabel()->text(), preset);
    w.modelSlider()->setSliderDown(false);
    const QString scaled = w.modelInfoLabel()->text();
    QVERIFY2(scaled.startsWith(QStringLiteral("Scaled Llama-style shape")), qPrintable(scaled));
    QVERIFY2(scaled.contains(QStringLiteral("Exactly %1 parameters.")
                                 .arg(QLocale(QLocale::English).toString(qlonglong(params)))),
             qPrintable(scaled));
    // A step without the slider held (an arrow key) updates it at once.
    w.modelSlider()->setValue(MainWindow::modelSliderPosition(13'000'000'000));
    QVERIFY(w.modelInfoLabel()->text() != scaled);
    QVERIFY(w.modelInfoLabel()->text().contains(
        QLocale(QLocale::English).toString(qlonglong(w.session()->scenario().model.parameters()))));
}

void TestMainWindow::presetSnapsTheSlider()
{
    MainWindow w;
    const int index = w.modelCombo()->findData(QStringLiteral("llama3.1-405b"));
    w.modelCombo()->setCurrentIndex(index);
    emit w.modelCombo()->activated(index);
    QVERIFY(!w.session()->modelIsScaled());
    QCOMPARE(w.modelSlider()->value(), MainWindow::modelSliderPosition(405853388800));
    QCOMPARE(qint64(w.session()->scenario().model.parameters()), 405853388800LL);
}

void TestMainWindow::spinBoxAndSliderAgree()
{
    MainWindow w;
    w.gpuSpin()->setValue(1000);
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 1000LL);
    QCOMPARE(w.gpuSlider()->value(), sliderIndexOf(1024));
    QCOMPARE(qint64(gpuSliderCounts(32).front()), 32LL);
    QCOMPARE(qint64(gpuSliderCounts(32).back()), 16384LL);
    QCOMPARE(qint64(gpuSliderCounts().back()), 16384LL);
}

void TestMainWindow::recipeBytesAreEditable()
{
    MainWindow w;
    w.modelStatesOnlyBox()->setChecked(true);
    w.modelCombo()->setCurrentIndex(w.modelCombo()->findData(QStringLiteral("plain-70b")));
    emit w.modelCombo()->activated(w.modelCombo()->currentIndex());
    const int bf16 = w.recipeCombo()->findData(QStringLiteral("bf16-adamw"));
    w.recipeCombo()->setCurrentIndex(bf16);
    emit w.recipeCombo()->activated(bf16);
    w.strategyButtons()->button(3)->click();
    w.gpuSpin()->setValue(8);
    // Pure bf16 AdamW, 8 B x 70e9 / 8 = 70 GB per card for 70B on 8 GPUs under ZeRO-3.
    QCOMPARE(w.chart()->stackTop(0), 70.0);
    QVERIFY(w.verdictLabel()->text().startsWith(QStringLiteral("Fits: 70 GB")));
}

void TestMainWindow::unitSwitchRedrawsInGib()
{
    MainWindow w;
    w.strategyButtons()->button(3)->click();
    w.session()->setUnit(ByteUnit::GiB);
    // The line at the driver's 81,559 MiB = 81,559 / 1,024 GiB = 79.65 GiB; the label
    // names the card as sold (80 GB = 74.5 GiB) and what the line stands for.
    QCOMPARE(w.chart()->capacityValue(), 81559 / 1024.0);
    QCOMPARE(w.chart()->capacityLabel(), QStringLiteral("H100 80 GB\n79.6 GiB usable"));
    QVERIFY(w.verdictLabel()->text().contains(QStringLiteral("of 79.6 GiB usable")));
}

void TestMainWindow::groupsWhenTooManyGpus()
{
    MainWindow w;
    w.gpuSpin()->setValue(16);
    QCOMPARE(w.chart()->barCount(), 16);
    QCOMPARE(w.chart()->barLabel(15), QStringLiteral("GPU 15"));
    w.gpuSpin()->setValue(16384);
    QCOMPARE(w.chart()->barCount(), 1);
    QCOMPARE(w.chart()->barLabel(0), QStringLiteral("GPU 0–16383\n× 16,384"));
}

void TestMainWindow::advancedLayoutMakesStages()
{
    MainWindow w;
    w.gpuSpin()->setValue(2); // d 2
    w.advancedPanel()->tensorParallel()->setValue(8);
    w.advancedPanel()->pipelineParallel()->setValue(4);
    // d stays 2: world size 2 x 8 x 4 = 64; the GPU slider now steps in multiples of 32.
    const Scenario &s = w.session()->scenario();
    QCOMPARE(qint64(s.layout.gpus), 64LL);
    QCOMPARE(qint64(s.layout.dataParallel()), 2LL);
    QCOMPARE(w.advancedPanel()->layoutLabel()->text(),
             QStringLiteral("64 GPUs = d 2 × t 8 × p 4 × c 1; global batch 16 sequences"));
    QCOMPARE(w.chart()->barCount(), 4); // one bar per stage (64 GPUs > 16)
    QCOMPARE(w.chart()->barLabel(3), QStringLiteral("Stage 3\nGPU 48–63\n× 16"));
    QCOMPARE(w.chart()->groupOfBar(3), 3);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(w.chart()->stackTop(i),
                 double(w.session()->report().groups[i].totalBytes()) / 1e9);
    w.gpuSlider()->setValue(w.gpuSlider()->value() + 1);
    QCOMPARE(qint64(s.layout.gpus), 96LL);
}

void TestMainWindow::timelineAndAdvancedEditTheSameSettings()
{
    // The Pipeline tab's schedule, p, m and v are the settings table's editors, with the
    // table's ranges and help, and edit exactly as the Advanced panel's controls of the
    // same settings do.
    MainWindow w;
    TimelinePanel *timeline = w.timelinePanel();
    AdvancedPanel *advanced = w.advancedPanel();
    for (const char *key : {"schedule", "pp", "microbatches", "chunks"}) {
        const Setting *setting = settingByKey(key);
        QWidget *mine = timeline->findChild<QWidget *>(QStringLiteral("timeline:") + key);
        QVERIFY2(mine, key);
        QCOMPARE(mine->toolTip(), toQString(setting->help));
        QCOMPARE(advanced->editor(key)->toolTip(), mine->toolTip());
        if (auto *spin = qobject_cast<QSpinBox *>(mine)) {
            QCOMPARE(spin->maximum(), int(setting->displayMax()));
            QCOMPARE(qobject_cast<QSpinBox *>(advanced->editor(key))->maximum(), spin->maximum());
        }
    }
    // "setting:pp" is the Advanced panel's alone.
    QCOMPARE(w.findChildren<QWidget *>(QStringLiteral("setting:pp")).size(), qsizetype(1));

    // p from either keeps d (64 GPUs, t = c = 1: d = 64).
    advanced->pipelineParallel()->setValue(2);
    QCOMPARE(w.session()->scenario().layout.gpus, std::int64_t(128));
    QCOMPARE(timeline->stagesSpin()->value(), 2);
    timeline->stagesSpin()->setValue(4);
    QCOMPARE(w.session()->scenario().layout.gpus, std::int64_t(256));
    QCOMPARE(advanced->pipelineParallel()->value(), 4);

    // Either schedule control brings back the last interleaved v (before, the Advanced
    // panel's reset it to 2).
    auto *schedule = qobject_cast<QComboBox *>(advanced->editor("schedule"));
    const auto choose = [](QComboBox *box, PipelineSchedule s) {
        box->setCurrentIndex(box->findData(int(s)));
    };
    choose(timeline->scheduleCombo(), PipelineSchedule::Interleaved1F1B);
    QCOMPARE(schedule->currentText(), QStringLiteral("Interleaved 1F1B"));
    timeline->chunksSpin()->setValue(4);
    choose(schedule, PipelineSchedule::OneFOneB);
    QCOMPARE(w.session()->scenario().training.chunks, 1);
    choose(schedule, PipelineSchedule::Interleaved1F1B);
    QCOMPARE(w.session()->scenario().training.chunks, 4);
    QCOMPARE(timeline->chunksSpin()->value(), 4);
}

void TestMainWindow::eagerLossRaisesTheLastStage()
{
    MainWindow w;
    w.gpuSpin()->setValue(2);
    w.advancedPanel()->tensorParallel()->setValue(8);
    w.advancedPanel()->pipelineParallel()->setValue(4);
    const double before = w.chart()->stackTop(3);
    const double firstBefore = w.chart()->stackTop(0);
    QComboBox *loss = w.advancedPanel()->lossKernel();
    loss->setCurrentIndex(loss->findData(int(LossKernel::Eager)));
    emit loss->activated(loss->currentIndex());
    const Scenario &s = w.session()->scenario();
    QCOMPARE(s.training.lossKernel, LossKernel::Eager);
    // Llama 3 70B, s 4096, b 1, t 8: 2 x 4096 x 16,032 x 4 = 525,336,576 bytes more on the
    // last stage (plus its 5% fragmentation reserve); the first stage is unchanged.
    const GpuGroup &last = w.session()->report().groups[3];
    QCOMPARE(qint64(last.activations.lossBackward), 525'336'576LL);
    QVERIFY(w.chart()->stackTop(3) - before > 0.525);
    QCOMPARE(w.chart()->stackTop(0), firstBefore);
}

void TestMainWindow::customRecipeAndGpuAreNamed()
{
    MainWindow w;
    Scenario s = w.session()->scenario();
    s.recipe = test::claim12bRecipe();
    s.gpu.id = "h100-96gb";
    s.gpu.name = "H100 96 GB (Grand Teton)";
    s.gpu.capacityBytes = 96'000'000'000;
    w.session()->setScenario(s);
    // Neither box may name a preset the scenario does not use.
    QCOMPARE(w.recipeCombo()->currentText(), QStringLiteral("12 B/param (the claim's own figure)"));
    QCOMPARE(w.gpuCombo()->currentText(), QStringLiteral("H100 96 GB (Grand Teton)"));
    // Back to presets: the boxes follow, and the custom entries stay available once.
    w.session()->setRecipe("mixed-adam");
    w.session()->setGpu("h100-sxm-80gb");
    QCOMPARE(w.recipeCombo()->currentData().toString(), QStringLiteral("mixed-adam"));
    QCOMPARE(w.gpuCombo()->currentData().toString(), QStringLiteral("h100-sxm-80gb"));
    QCOMPARE(w.gpuCombo()->findData(QStringLiteral("custom-gpu")), w.gpuCombo()->count() - 1);
}

void TestMainWindow::longLessonTitlesWrap()
{
    // Lesson 6 has the longest title; at the default 1600 pixels it must wrap, not widen
    // the window past the screen.
    MainWindow w;
    QVERIFY(test::shownAt(w, QSize(1600, 950)));
    for (int i = 0; i < w.lessonCount(); ++i) {
        w.startLesson(i);
        for (int step = 0; step < w.lessonStepCount(i); ++step) {
            QCoreApplication::processEvents();
            QVERIFY2(w.width() == 1600 && w.minimumSize().width() <= 1600,
                     qPrintable(QStringLiteral("lesson %1 step %2: %3 px wide, at least %4")
                                    .arg(i + 1)
                                    .arg(step + 1)
                                    .arg(w.width())
                                    .arg(w.minimumSize().width())));
            w.stepLesson(+1);
        }
    }
}

void TestMainWindow::impossibleLayoutSaysWhy()
{
    MainWindow w;
    w.advancedPanel()->tensorParallel()->setValue(3); // 64 heads are not divisible by 3
    QCOMPARE(w.verdictSentence(),
             QStringLiteral("Cannot estimate: activations: heads (64) is not divisible by tensor "
                            "parallel size (3)"));
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Cannot estimate"));
    QCOMPARE(w.chart()->barCount(), 0);
    QVERIFY(!w.verdictLabel()->text().contains(QStringLiteral("nan")));
    w.advancedPanel()->tensorParallel()->setValue(8);
    QVERIFY(w.session()->report().valid());
}

void TestMainWindow::breakdownShowsTheSelectedStage()
{
    MainWindow w;
    w.gpuSpin()->setValue(2);
    w.advancedPanel()->tensorParallel()->setValue(8);
    w.advancedPanel()->pipelineParallel()->setValue(4);
    // The peak stage by default: 1F1B holds most micro-batches on stage 0.
    // The breakdown follows 150 ms after the last change (it is coalesced during drags).
    QTRY_VERIFY(w.breakdownView()->title().startsWith(QStringLiteral("Stage 0 · GPU 0–15")));
    const GpuGroup &g0 = w.session()->report().groups[0];
    double sum = 0;
    for (auto *slice : w.breakdownView()->series()->slices())
        sum += slice->value();
    QCOMPARE(sum, double(g0.totalBytes()));
    QVERIFY(w.breakdownView()->communicationText().contains(QStringLiteral("Tensor parallel")));
    emit w.chart()->groupClicked(3);
    QVERIFY(w.breakdownView()->title().startsWith(QStringLiteral("Stage 3 · GPU 48–63")));
}

void TestMainWindow::presentationModeAndThemes()
{
    MainWindow w;
    w.show();
    QVERIFY(w.recipeCombo()->isVisible());
    w.setPresentationMode(true);
    // Controls shrink to the headline ones; type and lines grow.
    QVERIFY(!w.recipeCombo()->isVisible());
    QVERIFY(w.gpuSlider()->isVisible());
    QVERIFY(w.strategyButtons()->button(0)->isVisible());
    QCOMPARE(w.chart()->chartStyle().fontScale, 1.5);
    QCOMPARE(w.chart()->chartStyle().ink, QColor(Qt::black));
    QCOMPARE(w.verdictLabel()->font().pointSizeF(), 36.0); // 48 px at 96 dpi
    w.setDarkTheme(true);
    QCOMPARE(w.chart()->chartStyle().background, ChartStyle::dark().background);
    QVERIFY(w.palette().color(QPalette::Window).lightness() < 60);
    w.setPresentationMode(false);
    QVERIFY(w.recipeCombo()->isVisible());
    QCOMPARE(w.chart()->chartStyle().fontScale, 1.0);
    w.setDarkTheme(false);
    QCOMPARE(w.chart()->chartStyle().background, QColor(Qt::white));
}

void TestMainWindow::customModelNamesItself()
{
    MainWindow w;
    Scenario s = w.session()->scenario();
    s.model = Model{};
    s.model.id = "custom";
    s.model.displayName = "70B (plain count)";
    s.model.plainParameters = 70'000'000'000;
    w.session()->setScenario(s);
    QCOMPARE(w.modelCombo()->currentText(), QStringLiteral("70B (plain count)"));
    QCOMPARE(w.modelCombo()->currentData().toString(), QStringLiteral("custom"));
}

void TestMainWindow::tabsShareTheScenario()
{
    MainWindow w;
    w.modelStatesOnlyBox()->setChecked(true);
    w.modelCombo()->setCurrentIndex(w.modelCombo()->findData(QStringLiteral("plain-70b")));
    emit w.modelCombo()->activated(w.modelCombo()->currentIndex());
    w.showView(MainWindow::View::Compare);
    // 16 B x 70e9 = 1,120 GB; ZeRO-1 4 + 12/64; ZeRO-2 2 + 14/64; ZeRO-3 16/64 B per parameter:
    // 1,120 / 293.1 / 155.3 / 17.5 GB on 64 GPUs.
    QCOMPARE(w.compareChart()->stackTop(0), 1120.0);
    QCOMPARE(w.compareChart()->stackTop(3), 17.5);
    w.gpuSpin()->setValue(8); // the visible compare chart follows
    QCOMPARE(w.compareChart()->stackTop(3), 140.0);
    // The timeline's p is the memory view's p.
    w.modelCombo()->setCurrentIndex(w.modelCombo()->findData(QStringLiteral("llama3-70b")));
    emit w.modelCombo()->activated(w.modelCombo()->currentIndex());
    w.timelinePanel()->stagesSpin()->setValue(4);
    QCOMPARE(w.session()->scenario().layout.pipelineParallel, 4);
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 32LL); // d 8 kept
    QCOMPARE(w.chart()->barCount(), 4);                          // 32 GPUs: one bar per stage
}

void TestMainWindow::lessonsStepThroughTheSeeds()
{
    MainWindow w;
    QVERIFY(w.lessonText().isEmpty());
    w.startLesson(0); // resources/lessons/01-ddp-never-fits.json
    QCOMPARE(w.lessonStep(), 0);
    QVERIFY(!w.lessonText().isEmpty());
    // 1,120e9 - 85,520,809,984 usable = 1,034,479,190,016 bytes over.
    QVERIFY(w.verdictLabel()->text().contains(QStringLiteral("1,034 GB")));
    // Steps 2-6: 64 and 1,024 GPUs under DDP, then ZeRO-1, 2, 3 on 64 GPUs.
    for (int i = 0; i < 5; ++i)
        QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonStep(), 5);
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 17.5 GB of 85.5 GB usable per GPU"));
    while (w.stepLesson(+1)) {
    }
    // The last step counts Llama 3 70B's activations and buffers too (the lesson's
    // sentence states 33.7 GB; tests/io/test_lesson.cpp checks it against the engine).
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 33.7 GB of 85.5 GB usable per GPU"));
    QVERIFY(!w.stepLesson(+1));
    QVERIFY(w.stepLesson(-1));
    w.endLesson();
    QVERIFY(w.lessonText().isEmpty());
}

void TestMainWindow::scenarioSaveOpenAndBadFiles()
{
    QTemporaryDir dir;
    MainWindow w;
    w.gpuSpin()->setValue(2);
    w.advancedPanel()->tensorParallel()->setValue(8);
    w.advancedPanel()->pipelineParallel()->setValue(4);
    const qint64 peak = w.session()->report().peakBytes();
    const QString path = dir.filePath(QStringLiteral("s.json"));
    QString error;
    QVERIFY2(w.saveScenario(path, &error), qPrintable(error));

    MainWindow other;
    QVERIFY2(other.openFile(path, &error), qPrintable(error));
    QCOMPARE(qint64(other.session()->report().peakBytes()), peak);
    QCOMPARE(other.session()->scenario().layout.pipelineParallel, 4);

    // A truncated file is refused and nothing changes.
    QFile bad(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"schema\": \"shardscope-scenario\", \"version\": 1, \"gpus\": ");
    bad.close();
    QVERIFY(!other.openFile(bad.fileName(), &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(qint64(other.session()->report().peakBytes()), peak);
    QVERIFY(!other.openFile(dir.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY2(error.startsWith(QStringLiteral("missing.json: cannot open")), qPrintable(error));
}

void TestMainWindow::opensLaunchConfigs()
{
    // File > Open and a drop both go through openFile(): a torchtitan TOML sets the
    // layout over the defaults (64 GPUs: d = 64 / (8 x 2) = 4 = replicate 2 x shard 2,
    // so HSDP over 2 x c 1 = 2 ranks), the window's model stays, and the notes are kept.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("job.toml"));
    QVERIFY(test::writeFile(
        path, "[training]\nlocal_batch_size = 8\nseq_len = 8192\n"
              "[parallelism]\ndata_parallel_replicate_degree = 2\n"
              "data_parallel_shard_degree = 2\ntensor_parallel_degree = 8\n"
              "pipeline_parallel_degree = 2\npipeline_parallel_microbatch_size = 2\n"));
    MainWindow w;
    const std::string model = w.session()->scenario().model.id;
    QString error;
    QVERIFY2(w.openFile(path, &error), qPrintable(error));
    const Scenario &s = w.session()->scenario();
    QCOMPARE(s.model.id, model);
    QCOMPARE(s.layout.gpus, std::int64_t(64));
    QCOMPARE(s.layout.tensorParallel, 8);
    QCOMPARE(s.layout.pipelineParallel, 2);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(s.layout.hsdpShardSize, std::int64_t(2));
    QCOMPARE(s.training.microBatchSize, std::int64_t(2)); // the pipeline micro-batch
    QCOMPARE(s.training.microBatches, std::int64_t(4));   // local 8 / 2
    QCOMPARE(s.training.sequenceLength, std::int64_t(8192));
    QVERIFY(!w.openNotes().isEmpty());
    QVERIFY(w.openNotes().first().startsWith(QStringLiteral("The model and GPU are the window's")));

    // A broken one names the file and the line, and changes nothing.
    QFile bad(dir.filePath(QStringLiteral("bad.yaml")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("distributed_type: FSDP\nfsdp_config: [1,\n");
    bad.close();
    QVERIFY(!w.openFile(bad.fileName(), &error));
    QVERIFY2(error.startsWith(QStringLiteral("bad.yaml: line ")), qPrintable(error));
    QCOMPARE(w.session()->scenario().layout.tensorParallel, 8);
}

void TestMainWindow::exportsTheCurrentChart()
{
    QTemporaryDir dir;
    MainWindow w;
    QVERIFY(test::shownAt(w, QSize(1600, 950)));
    QString error;
    for (auto v :
         {MainWindow::View::Memory, MainWindow::View::Timeline, MainWindow::View::Compare}) {
        w.showView(v);
        const QString png = dir.filePath(QStringLiteral("v%1.png").arg(int(v)));
        QVERIFY2(w.exportCurrentChart(png, QSize(1920, 1080), &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(1920, 1080));
    }
    const QString pdf = dir.filePath(QStringLiteral("m.pdf"));
    w.showView(MainWindow::View::Memory);
    QVERIFY2(w.exportCurrentChart(pdf, QSize(1920, 1080), &error), qPrintable(error));
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(4) == "%PDF");

    // The slide's default title is the one `shardscope export --chart` gives the same
    // chart (review: the window prefixed the tab's name, two or three colons in a row).
    for (auto [v, id] : {std::pair{MainWindow::View::Memory, "memory"},
                         std::pair{MainWindow::View::Compare, "compare"},
                         std::pair{MainWindow::View::Timeline, "timeline"}}) {
        w.showView(v);
        QCOMPARE(w.slideOptions().title, findChart(QLatin1String(id))->slideTitle(*w.session()));
    }
    QCOMPARE(w.slideOptions().caption, scenarioCaption(w.session()->scenario()));
    // File > Export chart's dialog: the fields start from those options, and what is typed
    // is what the slide says.
    w.showView(MainWindow::View::Memory);
    ExportSlideDialog dialog(w.slideOptions(), &w);
    QCOMPARE(dialog.titleEdit()->text(), w.slideOptions().title);
    QCOMPARE(dialog.options().size, QSize(1920, 1080));
    dialog.titleEdit()->setText(QStringLiteral("  Lecture 3: why DDP overflows  "));
    dialog.captionEdit()->clear();
    dialog.sizeCombo()->setCurrentIndex(dialog.sizeCombo()->findData(QSize(1280, 720)));
    const ExportOptions typed = dialog.options();
    if (const QString shots = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !shots.isEmpty()) {
        QDir().mkpath(shots);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(dialog.grab().save(QDir(shots).filePath(QStringLiteral("export-dialog.png"))));
    }
    QCOMPARE(typed.title, QStringLiteral("Lecture 3: why DDP overflows"));
    QVERIFY(typed.caption.isEmpty());
    QCOMPARE(typed.size, QSize(1280, 720));
    const QString svg = dir.filePath(QStringLiteral("titled.svg"));
    QVERIFY2(w.exportCurrentChart(svg, typed, &error), qPrintable(error));
    QFile g(svg);
    QVERIFY(g.open(QIODevice::ReadOnly));
    const QByteArray bytes = g.readAll();
    QVERIFY(bytes.contains("Lecture 3: why DDP overflows"));
    QVERIFY(bytes.contains("viewBox=\"0 0 1280 720\""));
}

void TestMainWindow::lessonKeysWorkWhateverHasFocus()
{
    // A presenter clicker sends Right / PageDown / Space and Left / PageUp / Backspace;
    // Home, End and Escape jump and leave. They must step the lesson whatever widget
    // has focus, and the focused widget must not act on them as well.
    MainWindow w;
    showActive(w, QSize(1600, 950));
    expandAdvanced(w);
    QMenu *lessonsMenu = nullptr;
    for (QAction *a : w.menuBar()->actions())
        if (a->text() == QStringLiteral("&Lessons"))
            lessonsMenu = a->menu();
    QVERIFY(lessonsMenu && !lessonsMenu->actions().isEmpty());
    const Lesson lesson = builtInLessons().at(0); // 8 steps
    const int last = int(lesson.steps.size()) - 1;
    QCOMPARE(last, 7);
    QSpinBox *firstAdvanced = w.advancedPanel()->findChildren<QSpinBox *>().value(0);
    QVERIFY(firstAdvanced && firstAdvanced->isVisible());
    // Not text fields: those keep their editing keys (lessonKeysLeaveTextFieldsAlone()).
    const QList<QWidget *> targets{w.modelCombo(), w.chart(), w.tabs()->tabBar()};
    const struct
    {
        Qt::Key key;
        int step;
    } keys[] = {{Qt::Key_Right, 1},  {Qt::Key_PageDown, 2},    {Qt::Key_Space, 3},
                {Qt::Key_Left, 2},   {Qt::Key_PageUp, 1},      {Qt::Key_Backspace, 0},
                {Qt::Key_End, last}, {Qt::Key_Left, last - 1}, {Qt::Key_Home, 0},
                {Qt::Key_Right, 1},  {Qt::Key_Backspace, 0},   {Qt::Key_Backspace, 0},
                {Qt::Key_End, last}, {Qt::Key_Right, last}};
    for (QWidget *target : targets) {
        const QString name = QString::fromLatin1(target->metaObject()->className());
        lessonsMenu->actions().first()->trigger(); // Lessons > the first lesson
        QCOMPARE(w.lessonStep(), 0);
        for (const auto &k : keys) {
            // The step's view may hide the target (the chart under another tab): then
            // whatever took focus gets the key.
            if (target->isVisible())
                target->setFocus();
            QWidget *focused = QApplication::focusWidget();
            QVERIFY(focused);
            QVERIFY2(!target->isVisible() || focused == target || target->isAncestorOf(focused) ||
                         focused->focusProxy() == target,
                     qPrintable(name));
            QTest::keyClick(focused, k.key);
            QVERIFY2(w.lessonStep() == k.step,
                     qPrintable(QStringLiteral("%1, key %2: step %3, expected %4")
                                    .arg(name)
                                    .arg(int(k.key), 0, 16)
                                    .arg(w.lessonStep())
                                    .arg(k.step)));
            // Only the lesson moved: the scenario is exactly that step's.
            QCOMPARE(scenarioJson(w), scenarioJson(lessonDocument(lesson, k.step)));
        }
        if (target->isVisible())
            target->setFocus();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QVERIFY2(w.lessonText().isEmpty(), qPrintable(name));
        // With no lesson the keys are the widgets' again.
        QCOMPARE(scenarioJson(w), scenarioJson(lessonDocument(lesson, last)));
    }
    // Digits still type into a focused spin box during a lesson.
    w.startLesson(0);
    w.gpuSpin()->setFocus();
    w.gpuSpin()->selectAll();
    QTest::keyClicks(w.gpuSpin(), QStringLiteral("32"));
    QTest::keyClick(w.gpuSpin(), Qt::Key_Return);
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 32LL);
    QCOMPARE(w.lessonStep(), 0);
    // After the lesson ends the arrows are the spin box's again.
    w.endLesson();
    QTest::keyClick(w.gpuSpin(), Qt::Key_Up);
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 33LL);
}

void TestMainWindow::oneGpuIsSingular()
{
    // "1 GPU", not "1 GPUs" (review finding), whether the count comes from the session or
    // is typed; and typing 16 over it gives 16 GPUs.
    MainWindow w;
    showActive(w, QSize(1280, 720));
    w.session()->edit([](Scenario &s) { s.layout.gpus = 1; });
    QCoreApplication::processEvents();
    QCOMPARE(w.gpuSpin()->text(), QStringLiteral("1 GPU"));
    QSpinBox *spin = w.gpuSpin();
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("16"));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 16LL);
    QCOMPARE(spin->text(), QStringLiteral("16 GPUs"));
}

void TestMainWindow::batchControlsInFront()
{
    // Sequence length and micro-batch size sit in the front column, in presentation type
    // too (the activation lessons turn them), and edit the session as the Advanced panel's
    // controls do: 4,096 -> 8,192 tokens doubles the activations of a micro-batch
    // (core/activations.h: every stored tensor is s x b x h wide, no s^2 term with flash
    // attention).
    MainWindow w;
    showActive(w, QSize(1280, 720));
    w.setPresentationMode(true);
    QCoreApplication::processEvents();
    auto *seq = w.findChild<QSpinBox *>(QStringLiteral("headline:seq"));
    auto *mbs = w.findChild<QSpinBox *>(QStringLiteral("headline:mbs"));
    QVERIFY(seq && mbs);
    QVERIFY(seq->isVisible() && mbs->isVisible());
    QCOMPARE(seq->value(), 4096);
    QCOMPARE(mbs->value(), 1);
    const double before = double(w.session()->report().peakGroup()->bytes.activations);
    seq->setValue(8192);
    QCOMPARE(w.session()->scenario().training.sequenceLength, 8192LL);
    QCOMPARE(double(w.session()->report().peakGroup()->bytes.activations), 2 * before);
    mbs->setValue(2);
    QCOMPARE(w.session()->scenario().training.microBatchSize, 2LL);
    // The undo stack holds each edit; the controls follow an undo.
    w.undoStack()->undo();
    QCoreApplication::processEvents();
    QCOMPARE(mbs->value(), 1);
}

void TestMainWindow::controlColumnNeverScrollsSideways()
{
    // A projector at 1280x720 in presentation type: with every catalog model the control
    // column fits its width. Mixtral's "46.7B parameters, 12.9B active", one unwrapped
    // line, widened it by about 60 px under a sideways scroll bar, clipping the strategy
    // and fine-tuning buttons (seen in a screenshot).
    MainWindow w;
    showActive(w, QSize(1280, 720));
    w.setPresentationMode(true);
    auto *scroll = w.findChild<QScrollArea *>(QStringLiteral("controlScroll"));
    QVERIFY(scroll);
    for (const Model &m : Catalog::builtIn().models()) {
        w.session()->setModelPreset(m.id);
        w.settle();
        settleLayouts();
        QVERIFY2(scroll->horizontalScrollBar()->maximum() == 0,
                 qPrintable(QStringLiteral("%1: %2 px to scroll")
                                .arg(QString::fromStdString(m.id))
                                .arg(scroll->horizontalScrollBar()->maximum())));
    }
}

void TestMainWindow::blankScreenAndControlColumn()
{
    // B blanks the window black, as slide software does; any key returns to the same view
    // and gives the focus back. In the GPU box, B and '.' are typing, not the blank key.
    // Ctrl+B hides the control column (a presenter view): the chart widens, nothing else
    // changes, and Ctrl+B brings it back.
    MainWindow w;
    showActive(w, QSize(1280, 720));
    w.setPresentationMode(true);
    QCoreApplication::processEvents();
    const QByteArray before = scenarioJson(w);
    w.tabs()->setFocus();
    QTest::keyClick(w.tabs(), Qt::Key_B);
    QVERIFY(w.blankScreen()->isBlank());
    QCOMPARE(w.blankScreen()->geometry(), w.rect());
    QCOMPARE(w.blankScreen()->grab().toImage().pixelColor(20, 20), QColor(Qt::black));
    QVERIFY(w.blankScreen()->hasFocus());
    QTest::keyClick(w.blankScreen(), Qt::Key_Right); // a clicker's next key
    QVERIFY(!w.blankScreen()->isBlank());
    QVERIFY(w.tabs()->hasFocus());
    QCOMPARE(scenarioJson(w), before);
    QTest::keyClick(w.tabs(), Qt::Key_Period);
    QVERIFY(w.blankScreen()->isBlank());
    QTest::mouseClick(w.blankScreen(), Qt::LeftButton);
    QVERIFY(!w.blankScreen()->isBlank());
    QSpinBox *spin = w.gpuSpin();
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_B);
    QTest::keyClick(spin, Qt::Key_Period);
    QVERIFY(!w.blankScreen()->isBlank());

    const int chartWidth = w.chart()->width();
    QVERIFY(w.controlColumnShown());
    QTest::keyClick(w.tabs(), Qt::Key_B, Qt::ControlModifier);
    QCoreApplication::processEvents();
    QVERIFY(!w.controlColumnShown());
    QVERIFY(!w.gpuSpin()->isVisible());
    QVERIFY2(w.chart()->width() > chartWidth + 300,
             qPrintable(QStringLiteral("%1 -> %2").arg(chartWidth).arg(w.chart()->width())));
    QTest::keyClick(w.tabs(), Qt::Key_B, Qt::ControlModifier);
    QCoreApplication::processEvents();
    QVERIFY(w.controlColumnShown());
    QVERIFY(w.gpuSpin()->isVisible());
    QCOMPARE(scenarioJson(w), before);
}

void TestMainWindow::lessonKeysLeaveTextFieldsAlone()
{
    // The review's repro (N4): lesson 1, End, type 1289 into the GPU box, Backspace. The
    // editing keys are the box's: the lesson stays on its last step and the box keeps
    // what was typed. PageUp and PageDown, what clickers send, still step.
    MainWindow w;
    showActive(w, QSize(1600, 950));
    expandAdvanced(w);
    w.startLesson(0);
    w.lessonPlayer()->goToLessonStep(7); // End
    QCOMPARE(w.lessonStep(), 7);
    QSpinBox *spin = w.gpuSpin();
    QSpinBox *advanced = w.advancedPanel()->findChildren<QSpinBox *>().value(0);
    QVERIFY(advanced && advanced->isVisible());
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("1289"));
    QTest::keyClick(spin, Qt::Key_Backspace);
    QCOMPARE(w.lessonStep(), 7);
    QCOMPARE(spin->cleanText(), QStringLiteral("128"));
    for (const Qt::Key key :
         {Qt::Key_Left, Qt::Key_Right, Qt::Key_Home, Qt::Key_End, Qt::Key_Space, Qt::Key_Escape}) {
        QTest::keyClick(spin, key);
        QVERIFY2(w.lessonStep() == 7 && !w.lessonText().isEmpty(),
                 qPrintable(QStringLiteral("key %1").arg(int(key), 0, 16)));
    }
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 128LL);
    QCOMPARE(w.lessonStep(), 7);
    // The same in a spin box of the advanced settings.
    advanced->setFocus();
    const QString before = advanced->text();
    QTest::keyClick(advanced, Qt::Key_Home);
    QTest::keyClick(advanced, Qt::Key_Backspace);
    QCOMPARE(w.lessonStep(), 7);
    QCOMPARE(advanced->text(), before); // Backspace at the start deletes nothing
    QTest::keyClick(advanced, Qt::Key_End);
    QTest::keyClick(advanced, Qt::Key_Backspace);
    QCOMPARE(w.lessonStep(), 7);
    QCOMPARE(advanced->text().size(), before.size() - 1); // ... at the end, one character
    // PageUp and PageDown step the lesson from a text field, and change no setting.
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_PageUp);
    QCOMPARE(w.lessonStep(), 6);
    QCOMPARE(scenarioJson(w), scenarioJson(lessonDocument(builtInLessons().at(0), 6)));
    QTest::keyClick(spin, Qt::Key_PageDown);
    QCOMPARE(w.lessonStep(), 7);
}

void TestMainWindow::lessonFileOpensAndShowsItsOwnText()
{
    // A lesson written by hand (the example of docs/lessons.md) opens from File > Open
    // (told by its content), a drop and File > Open lesson alike, and shows its own text.
    const QString file = QFINDTESTDATA("../io/data/lessons/sharding-in-three-steps.json");
    QVERIFY(!file.isEmpty());
    MainWindow w;
    const int builtIns = w.lessonCount();
    QString error;
    QVERIFY2(w.openFile(file, &error), qPrintable(error));
    QCOMPARE(w.lessonCount(), builtIns + 1);
    QCOMPARE(w.lessonText(),
             QStringLiteral("Under DDP each of the 64 GPUs keeps all 1,120 GB of model states."));
    QCOMPARE(w.lessonPlayer()->stepTitleLabel()->text(),
             QStringLiteral("Step 1 of 3: Every GPU holds everything"));
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 64LL);
    QCOMPARE(w.session()->scenario().model.id, std::string("plain-70b"));
    QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.session()->scenario().layout.zeroStage, ZeroStage::Zero1);
    QCOMPARE(w.lessonChangesText(), QStringLiteral("Changed: Strategy → ZeRO-1"));
    // The Lessons menu lists it after the built-in lessons.
    QMenu *lessonsMenu = nullptr;
    for (QAction *a : w.menuBar()->actions())
        if (a->text() == QStringLiteral("&Lessons"))
            lessonsMenu = a->menu();
    QVERIFY(lessonsMenu);
    QCOMPARE(lessonsMenu->actions().value(builtIns)->text(),
             QStringLiteral("Sharding a 70B in three steps"));
    w.endLesson();

    // A drop of the same file.
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(file)});
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    // Delivered as the window's drop handler gets it (QApplication::notify() passes a
    // Drop only to the target of a drag in progress, which a test has none of).
    static_cast<QObject &>(w).event(&drop);
    QCOMPARE(w.lessonCount(), builtIns + 2);
    QCOMPARE(w.lessonStep(), 0);
    QCOMPARE(w.lessonPlayer()->stepTitleLabel()->text(),
             QStringLiteral("Step 1 of 3: Every GPU holds everything"));

    // A malformed lesson: one line naming the file, the step and the field; nothing added.
    const QString bad = QFINDTESTDATA("../io/data/lessons/bad-gpus.json");
    QCOMPARE(w.openLessonFile(bad, &error), -1);
    QCOMPARE(error, QStringLiteral("bad-gpus.json, step 2: \"gpus\" must be a whole number from "
                                   "1 to 1048576 (got \"sixty-four\")"));
    QVERIFY(!w.openFile(bad, &error));
    QVERIFY(error.startsWith(QStringLiteral("bad-gpus.json, step 2: \"gpus\"")));
    QCOMPARE(w.lessonCount(), builtIns + 2);
}

void TestMainWindow::authoredLessonRoundTrip()
{
    // A teacher authors a lesson by doing it: two steps set in the window, each added as a
    // step, saved, and opened again: the same settings, views, titles and sentences.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("my-lesson.json"));
    MainWindow w;
    QString error;
    QVERIFY(!w.saveLesson(path, QStringLiteral("Mine"), &error)); // no steps yet
    QVERIFY(error.startsWith(QStringLiteral("No steps yet")));
    w.session()->setModelPreset("llama3-8b");
    w.session()->setGpus(8);
    w.session()->setZeroStage(ZeroStage::Zero3);
    const QByteArray first = scenarioJson(w);
    QVERIFY2(w.addViewAsLessonStep(QStringLiteral("An 8B on 8 GPUs"),
                                   QStringLiteral("ZeRO-3 shards everything eight ways."), &error),
             qPrintable(error));
    w.session()->setGpus(16);
    w.session()->setUnit(ByteUnit::GiB);
    w.showView(MainWindow::View::Compare);
    const QByteArray second = scenarioJson(w);
    // Two sentences are refused with the loader's message, naming the step and field.
    QVERIFY(!w.addViewAsLessonStep(QStringLiteral("x"), QStringLiteral("One. Two."), &error));
    QCOMPARE(error, QStringLiteral("the new lesson, step 2: \"text\" must be one sentence "
                                   "ending in . ! or ?"));
    QVERIFY2(w.addViewAsLessonStep(QStringLiteral("Sixteen"),
                                   QStringLiteral("Twice the GPUs, half the shards?"), &error),
             qPrintable(error));
    QCOMPARE(int(w.lessonPlayer()->draft().steps.size()), 2);
    // Step 2 holds only what changed since step 1.
    QCOMPARE(w.lessonPlayer()->draft().steps[1].patch,
             (QJsonObject{{"gpus", 16}, {"unit", "gib"}}));
    QVERIFY2(w.saveLesson(path, QStringLiteral("My first lesson"), &error), qPrintable(error));

    w.resetToDefaults();
    QVERIFY(scenarioJson(w) != first);
    const int index = w.openLessonFile(path, &error);
    QVERIFY2(index >= 0, qPrintable(error));
    const Lesson &back = w.lessonPlayer()->lessons()[std::size_t(index)];
    QCOMPARE(back.title, QStringLiteral("My first lesson"));
    QCOMPARE(back.id, QStringLiteral("my-lesson"));
    QCOMPARE(int(back.steps.size()), 2);
    QCOMPARE(back.steps[0].patch.value(QStringLiteral("model")).toString(),
             QStringLiteral("llama3-8b")); // a preset by its id
    QCOMPARE(scenarioJson(w), first);
    QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::View::Memory));
    QCOMPARE(w.lessonText(), QStringLiteral("ZeRO-3 shards everything eight ways."));
    QVERIFY(w.stepLesson(+1));
    QCOMPARE(scenarioJson(w), second);
    QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::View::Compare));
    QCOMPARE(w.lessonPlayer()->stepTitleLabel()->text(), QStringLiteral("Step 2 of 2: Sixteen"));
    QCOMPARE(w.lessonText(), QStringLiteral("Twice the GPUs, half the shards?"));
}

void TestMainWindow::lessonChartKeepsOneScale()
{
    // Lesson 1 goes from DDP's 1,120 GB bar to ZeRO-3's 17.5 GB and Llama 3 70B's 33.7 GB:
    // one y axis for all of its steps, at its largest step, 1,120 GB x 1.22 headroom.
    MainWindow w;
    w.resize(1280, 720);
    w.setPresentationMode(true);
    w.startLesson(0);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.session()->lessonScaleBytes(), std::int64_t(1'120'000'000'000));
    for (int step = 0; step < w.lessonStepCount(0); ++step) {
        w.showView(MainWindow::View::Memory); // the compare step hides the bars
        settleLayouts();
        QVERIFY2(
            qFuzzyCompare(w.chart()->axisTop(), 1120 * 1.22),
            qPrintable(
                QStringLiteral("step %1: y axis to %2").arg(step + 1).arg(w.chart()->axisTop())));
        w.stepLesson(+1);
    }
    // Without the option the axis fits the step: ZeRO-3's 17.5 GB under the H100's 85.5 GB
    // line.
    w.lessonPlayer()->goToLessonStep(5);
    w.setLessonChartOptions(false, false);
    settleLayouts();
    QVERIFY(w.chart()->axisTop() < 150);
    w.setLessonChartOptions(true, true);
    settleLayouts();
    QVERIFY(qFuzzyCompare(w.chart()->axisTop(), 1120 * 1.22));
    // An edit past the lesson's scale fits the axis again, and leaving the lesson frees it.
    w.session()->setZeroStage(ZeroStage::Ddp);
    w.session()->setModelPreset("llama3.1-405b");
    QVERIFY(w.chart()->axisTop() > 1120 * 1.22);
    w.session()->setModelPreset("llama3-70b");
    w.session()->setZeroStage(ZeroStage::Zero3);
    w.endLesson();
    QVERIFY(w.chart()->axisTop() < 150);
}

void TestMainWindow::lessonChartGhostsThePreviousStep()
{
    // Behind each step's bars, the previous step's totals, faint: lesson 1 step 4 (ZeRO-1
    // on 64 GPUs, 70e9 x (2 + 2 + 12/64) B = 293.125 GB) over step 3's DDP 1,120 GB.
    MainWindow w;
    w.resize(1280, 720);
    w.startLesson(0);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.chart()->ghostCount(), 0); // the first step has none
    w.lessonPlayer()->goToLessonStep(3);
    settleLayouts();
    QCOMPARE(w.chart()->barCount(), 1); // GPU 0–63 × 64
    QCOMPARE(w.chart()->ghostCount(), 1);
    QCOMPARE(w.chart()->ghostTop(0), 1120.0);
    QCOMPARE(w.chart()->stackTop(0), 293.125);
    QVERIFY(w.chart()->ghostBars()->visible());
    QVERIFY(w.chart()->ghostBars()->brush().color().alpha() <= 60); // faint
    QCOMPARE(w.chart()->ghostBars()->pen().style(), Qt::DashLine);
    QVERIFY(w.stepLesson(+1)); // ZeRO-2: 70e9 x (2 + 14/64) B = 155.3125 GB
    QCOMPARE(w.chart()->ghostTop(0), 293.125);
    QCOMPARE(w.chart()->stackTop(0), 155.3125);
    // Switched off, or out of the lesson: none.
    w.setLessonChartOptions(true, false);
    QCOMPARE(w.chart()->ghostCount(), 0);
    w.setLessonChartOptions(true, true);
    QCOMPARE(w.chart()->ghostCount(), 1);
    w.endLesson();
    QCOMPARE(w.chart()->ghostCount(), 0);
}

void TestMainWindow::lessonTextReadsAt1280x720()
{
    // A projector at 1280x720 in presentation: the step's title, its sentence and the
    // "Changed:" line at 24 px at least (the review measured about 19 px).
    MainWindow w;
    w.resize(1280, 720);
    w.startLesson(0);
    w.setPresentationMode(true);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.stepLesson(+1));
    settleLayouts();
    QCOMPARE(w.size(), QSize(1280, 720));
    const LessonPlayer *p = w.lessonPlayer();
    for (const QLabel *label : {p->stepTitleLabel(), p->sentenceLabel(), p->changesLabel()}) {
        QVERIFY(label->isVisible());
        QVERIFY2(QFontInfo(label->font()).pixelSize() >= 24,
                 qPrintable(QStringLiteral("\"%1\": %2 px")
                                .arg(label->text().left(30))
                                .arg(QFontInfo(label->font()).pixelSize())));
    }
    // To leave the tabs their room the step's title sits beside the buttons, and a long
    // "Changed:" line is cut to one line, whole in its tooltip (lesson 4, step 1 after
    // lesson 1 changes seven settings).
    QCOMPARE(p->stepTitleLabel()->text(), QStringLiteral("Step 2 of 8: DDP on 64 GPUs"));
    QCOMPARE(p->changesLabel()->text(), QStringLiteral("Changed: GPUs → 64"));
    w.startLesson(3);
    settleLayouts();
    const QString full = w.lessonChangesText();
    QVERIFY2(full.contains(QStringLiteral("Pipeline stages p → 4, Strategy → ZeRO-1")),
             qPrintable(full));
    QVERIFY(p->changesLabel()->text().endsWith(QChar(0x2026)));
    QCOMPARE(p->changesLabel()->toolTip(), full);
    QVERIFY(p->changesLabel()->height() < 2 * QFontInfo(p->changesLabel()->font()).pixelSize());
    QCOMPARE(w.size(), QSize(1280, 720));
}

void TestMainWindow::lessonButtonsStayPut()
{
    // Repeated clicks on Next must land on Next: Back and Next keep their place and size
    // whatever the length of a step's title and sentence, at both window sizes.
    for (const QSize size : {QSize(1600, 950), QSize(1280, 720)}) {
        MainWindow w;
        QVERIFY(test::shownAt(w, size));
        QPushButton *back = buttonWithText(w, QStringLiteral("◀ Back"));
        QPushButton *next = buttonWithText(w, QStringLiteral("Next ▶"));
        QVERIFY(back && next);
        QRect backAt, nextAt;
        for (int i = 0; i < w.lessonCount(); ++i) {
            w.startLesson(i);
            for (int step = 0; step < w.lessonStepCount(i); ++step) {
                QCoreApplication::processEvents();
                const QRect b(back->mapTo(&w, QPoint(0, 0)), back->size());
                const QRect n(next->mapTo(&w, QPoint(0, 0)), next->size());
                if (!nextAt.isValid()) {
                    backAt = b;
                    nextAt = n;
                }
                const QString where = QStringLiteral("%1x%2, lesson %3 step %4")
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(i + 1)
                                          .arg(step + 1);
                QVERIFY2(n == nextAt, qPrintable(where));
                QVERIFY2(b == backAt, qPrintable(where));
                w.stepLesson(+1);
            }
        }
    }
}

void TestMainWindow::wheelLeavesUnfocusedControlsAlone()
{
    // Scrolling the left panel with the wheel over a control must scroll the panel, not
    // turn the control; a control with focus still takes the wheel.
    MainWindow w;
    showActive(w, QSize(1280, 720));
    expandAdvanced(w);
    QCoreApplication::processEvents();
    QScrollArea *scroll = controlScroll(w);
    QVERIFY(scroll);
    w.tabs()->tabBar()->setFocus(); // focus away from every control of the panel
    const QByteArray before = scenarioJson(w);
    QList<QWidget *> controls{w.modelCombo(), w.modelSlider(), w.gpuSlider(),
                              w.gpuSpin(),    w.gpuCombo(),    w.recipeCombo()};
    for (QWidget *c : w.advancedPanel()->findChildren<QWidget *>())
        if (qobject_cast<QAbstractSpinBox *>(c) || qobject_cast<QComboBox *>(c))
            controls << c;
    QVERIFY(controls.size() > 20);
    for (QWidget *c : controls) {
        const QString name = c->objectName().isEmpty()
                                 ? QString::fromLatin1(c->metaObject()->className())
                                 : c->objectName();
        QVERIFY2(c->focusPolicy() == Qt::StrongFocus, qPrintable(name));
        scroll->ensureWidgetVisible(c);
        const int scrolled = scroll->verticalScrollBar()->value();
        wheelDown(c);
        QVERIFY2(scenarioJson(w) == before, qPrintable(name + QStringLiteral(" turned")));
        // The panel scrolled instead (unless it was already at the bottom).
        QVERIFY2(scroll->verticalScrollBar()->value() > scrolled ||
                     scrolled == scroll->verticalScrollBar()->maximum(),
                 qPrintable(name + QStringLiteral(" did not scroll the panel")));
    }
    // With focus the spin box takes the wheel: one notch down is one GPU fewer.
    w.gpuSpin()->setFocus();
    wheelDown(w.gpuSpin());
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 63LL);
}

void TestMainWindow::typedGpuCountIsExact()
{
    // In English the box shows 16,384 GPUs; typing 16384 must give 16,384, not the
    // 16,348 a separator inserted while typing made of it.
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    auto restore = qScopeGuard([] { QLocale::setDefault(QLocale::c()); });
    MainWindow w;
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.gpuSpin()->setValue(1024);
    QCOMPARE(w.gpuSpin()->text(), QStringLiteral("1,024 GPUs"));
    w.gpuSpin()->setFocus();
    w.gpuSpin()->selectAll();
    QTest::keyClicks(w.gpuSpin(), QStringLiteral("16384"));
    QTest::keyClick(w.gpuSpin(), Qt::Key_Return);
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 16384LL);
    w.tabs()->tabBar()->setFocus();
    QCOMPARE(w.gpuSpin()->text(), QStringLiteral("16,384 GPUs"));
    // And again from the keyboard alone: focus, select all, type, leave with Tab.
    w.gpuSpin()->setFocus();
    QTest::keyClick(w.gpuSpin(), Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(w.gpuSpin(), QStringLiteral("12288"));
    w.tabs()->tabBar()->setFocus();
    QCOMPARE(qint64(w.session()->scenario().layout.gpus), 12288LL);
}

void TestMainWindow::selectedStrategyStandsOut()
{
    // On a projector the chosen strategy must be plain to see: the selected button's face
    // against each other button's at least 3:1 (WCAG 2.1 non-text contrast, 1.4.11),
    // measured on the drawn pixels, in both themes and in presentation mode.
    MainWindow w;
    QVERIFY(test::shownAt(w, QSize(1600, 950)));
    for (const bool present : {false, true}) {
        w.setPresentationMode(present);
        for (const bool dark : {false, true}) {
            w.setDarkTheme(dark);
            for (int selected : {0, 3}) {
                w.strategyButtons()->button(selected)->click();
                QCoreApplication::processEvents();
                const double on = faceLuminance(w.strategyButtons()->button(selected));
                for (int z = 0; z <= 3; ++z) {
                    if (z == selected)
                        continue;
                    const double off = faceLuminance(w.strategyButtons()->button(z));
                    const double ratio = contrastRatio(on, off);
                    QVERIFY2(ratio >= 3.0,
                             qPrintable(
                                 QStringLiteral("%1%2: selected %3 against %4: %5:1")
                                     .arg(dark ? "dark" : "light", present ? ", presentation" : "")
                                     .arg(selected)
                                     .arg(z)
                                     .arg(ratio, 0, 'f', 2)));
                }
            }
        }
    }
}

void TestMainWindow::slidersNameTheirValues()
{
    // A screen reader reads a slider's name and description, not its position 0..1000.
    MainWindow w;
    auto description = [](QWidget *widget) {
        QAccessibleInterface *a = QAccessible::queryAccessibleInterface(widget);
        return a ? a->text(QAccessible::Description) : QString();
    };
    auto name = [](QWidget *widget) {
        QAccessibleInterface *a = QAccessible::queryAccessibleInterface(widget);
        return a ? a->text(QAccessible::Name) : QString();
    };
    QCOMPARE(name(w.gpuSlider()), QStringLiteral("GPU count"));
    QCOMPARE(name(w.modelSlider()), QStringLiteral("Model size"));
    // Llama 3 70B: 70,553,706,496 parameters, 64 GPUs.
    QCOMPARE(description(w.gpuSlider()), QStringLiteral("64 GPUs"));
    QCOMPARE(description(w.modelSlider()), QStringLiteral("70.6B parameters"));
    w.gpuSpin()->setValue(16384);
    QCOMPARE(description(w.gpuSlider()), QStringLiteral("16,384 GPUs"));
    w.gpuSpin()->setValue(1);
    QCOMPARE(description(w.gpuSlider()), QStringLiteral("1 GPU"));
    const int index = w.modelCombo()->findData(QStringLiteral("llama3.1-405b"));
    w.modelCombo()->setCurrentIndex(index);
    emit w.modelCombo()->activated(index);
    QCOMPARE(description(w.modelSlider()), QStringLiteral("405.9B parameters")); // 405,853,388,800
    w.modelSlider()->setValue(MainWindow::modelSliderPosition(7'000'000'000));
    QCOMPARE(w.modelSlider()->accessibleDescription(),
             QStringLiteral("%1 parameters")
                 .arg(QString::fromStdString(
                     formatParameters(w.session()->scenario().model.parameters()))));
    // The strategy buttons read as one line each.
    QCOMPARE(name(w.strategyButtons()->button(3)), QStringLiteral("ZeRO-3 / FSDP"));
}

void TestMainWindow::worksAt1280x720()
{
    // A 1280x720 projector: the window takes that size exactly, opened as the command
    // line opens it (lesson, then mode, then shown), through every step of every lesson,
    // in both modes, and nothing in it is squeezed: every wrapped line of text outside a
    // scrolling column gets the height its text needs, the chart its minimum.
    for (const bool present : {false, true}) {
        for (int i = 0; i < lessonCountOf(); ++i) {
            MainWindow w;
            w.resize(1280, 720);
            w.startLesson(i);
            w.setPresentationMode(present);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            for (int step = 0; step < w.lessonStepCount(i); ++step) {
                settleLayouts();
                const QString where = QStringLiteral("lesson %1 step %2%3")
                                          .arg(i + 1)
                                          .arg(step + 1)
                                          .arg(present ? ", presentation" : "");
                QVERIFY2(
                    w.size() == QSize(1280, 720),
                    qPrintable(
                        QStringLiteral("%1: %2x%3").arg(where).arg(w.width()).arg(w.height())));
                QVERIFY2(w.minimumSizeHint().width() <= 1280 && w.minimumSizeHint().height() <= 720,
                         qPrintable(where));
                QVERIFY2(w.chart()->height() >= w.chart()->minimumHeight(), qPrintable(where));
                // A step on the pipeline tab shows it whole: the panel needs no more height
                // than its scroll area's viewport has (no scrolling to reach the timeline).
                if (const TimelinePanel *panel = w.timelinePanel(); panel->isVisible()) {
                    const int room = panel->parentWidget()->height();
                    QVERIFY2(panel->minimumSizeHint().height() <= room,
                             qPrintable(QStringLiteral("%1: the pipeline tab needs %2 px, has %3")
                                            .arg(where)
                                            .arg(panel->minimumSizeHint().height())
                                            .arg(room)));
                }
                for (QLabel *label : w.findChildren<QLabel *>()) {
                    if (!label->isVisible() || !label->wordWrap() || insideScrollArea(label))
                        continue;
                    QVERIFY2(label->height() >= label->heightForWidth(label->width()),
                             qPrintable(QStringLiteral("%1: \"%2\" is %3 px high, needs %4")
                                            .arg(where, label->text().left(40))
                                            .arg(label->height())
                                            .arg(label->heightForWidth(label->width()))));
                }
                w.stepLesson(+1);
            }
        }
    }
    // The advanced settings open in the left column, which scrolls.
    MainWindow w;
    QVERIFY(test::shownAt(w, QSize(1280, 720)));
    expandAdvanced(w);
    QCoreApplication::processEvents();
    QCOMPARE(w.size(), QSize(1280, 720));
    QVERIFY(controlScroll(w)->verticalScrollBar()->maximum() > 0);
}

void TestMainWindow::lessonStepSaysWhatChanged()
{
    // With the advanced settings hidden, a step that moves the sequence length or the
    // offload would change the chart with nothing on screen saying why: the lesson bar
    // names each setting the step changed, against the screen before it.
    MainWindow w;
    QVERIFY(test::shownAt(w, QSize(1600, 950)));
    auto *label = w.findChild<QLabel *>(QStringLiteral("lessonChanges"));
    QVERIFY(label);
    QVERIFY(w.lessonChangesText().isEmpty());
    // Lesson 1 from the window's start (Llama 3 70B, 64 GPUs, DDP): its "start" sets the
    // plain 70B count and model states only; step 1 sets 8 GPUs.
    w.startLesson(0);
    QCOMPARE(
        w.lessonChangesText(),
        QStringLiteral("Changed: Model → 70B (plain count), GPUs → 8, Model states only → on"));
    QVERIFY(label->isVisible());
    QCOMPARE(label->text(), w.lessonChangesText());
    // resources/lessons/05-activation-memory.json, step 2: { "seq": 8192 }.
    w.startLesson(4);
    QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonChangesText(), QStringLiteral("Changed: Sequence length → 8,192 tokens"));
    QCOMPARE(qint64(w.session()->scenario().training.sequenceLength), 8192LL);
    QVERIFY(label->isVisible());
    // Step 3: { "flash_attention": false }; back again puts it on.
    QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonChangesText(), QStringLiteral("Changed: FlashAttention → off"));
    QVERIFY(w.stepLesson(-1));
    QCOMPARE(w.lessonChangesText(), QStringLiteral("Changed: FlashAttention → on"));
    // 02-zero3-on-8-h100s.json: step 2 shows GiB (GB against GiB), step 3 switches the
    // view and back to GB, step 4 sets the offload.
    w.startLesson(1);
    QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonChangesText(), QStringLiteral("Changed: Unit → GiB"));
    QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonChangesText(), QStringLiteral("Changed: Unit → GB"));
    QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonChangesText(), QStringLiteral("Changed: CPU offload → optimizer"));
    QCOMPARE(w.session()->scenario().layout.offload, Offload::Optimizer);
    // 04-pipeline-bubble.json, step 5: { "schedule": "interleaved", "chunks": 2 }.
    w.startLesson(3);
    for (int i = 0; i < 4; ++i)
        QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonChangesText(),
             QStringLiteral(
                 "Changed: Pipeline schedule → Interleaved 1F1B, Chunks v (interleaved) → 2"));
    w.endLesson();
    QVERIFY(w.lessonChangesText().isEmpty());
    QVERIFY(!label->isVisible());
}

void TestMainWindow::undoRedoAndReset()
{
    MainWindow w;
    showActive(w, QSize(1600, 950));
    auto *undo = w.findChild<QAction *>(QStringLiteral("undo"));
    auto *redo = w.findChild<QAction *>(QStringLiteral("redo"));
    auto *reset = w.findChild<QAction *>(QStringLiteral("resetToDefaults"));
    QVERIFY(undo && redo && reset);
    QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
    QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    QCOMPARE(w.undoStack()->count(), 0); // the history starts with the window
    QVERIFY(!undo->isEnabled());
    const Scenario &s = w.session()->scenario();
    auto gpus = [&s] { return qint64(s.layout.gpus); };

    // Change the GPUs, then the strategy: two steps, named.
    w.gpuSpin()->setValue(8);
    w.strategyButtons()->button(3)->click();
    QCOMPARE(gpus(), 8LL);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(w.undoStack()->count(), 2);
    QCOMPARE(undo->text(), QStringLiteral("&Undo Strategy → ZeRO-3 / FSDP"));
    undo->trigger();
    QCOMPARE(gpus(), 8LL);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
    QVERIFY(w.strategyButtons()->button(0)->isChecked()); // the controls follow
    undo->trigger();
    QCOMPARE(gpus(), 64LL);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
    QCOMPARE(w.gpuSpin()->value(), 64);
    QVERIFY(!undo->isEnabled());
    redo->trigger();
    QCOMPARE(gpus(), 8LL);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
    QCOMPARE(redo->text(), QStringLiteral("&Redo Strategy → ZeRO-3 / FSDP"));

    // The standard keys, with focus on a widget that has no undo of its own.
    w.tabs()->tabBar()->setFocus();
    QTest::keyClick(w.tabs()->tabBar(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero3);
    QTest::keyClick(w.tabs()->tabBar(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
    QCOMPARE(gpus(), 8LL);

    // A slider drag is one step, however many counts it passes; a change after an undo
    // starts a step of its own (it drops the strategy change that could be redone).
    w.gpuSlider()->setSliderDown(true);
    for (int c : {16, 32, 64, 128})
        w.gpuSlider()->setValue(sliderIndexOf(c));
    w.gpuSlider()->setSliderDown(false);
    QCOMPARE(gpus(), 128LL);
    QCOMPARE(w.undoStack()->count(), 2);
    QCOMPARE(undo->text(), QStringLiteral("&Undo GPUs → 128"));
    undo->trigger();
    QCOMPARE(gpus(), 8LL);
    redo->trigger();
    QCOMPARE(gpus(), 128LL);
    // So is a burst on one setting (a held arrow key) within half a second ...
    w.advancedPanel()->tensorParallel()->setValue(2);
    w.advancedPanel()->tensorParallel()->setValue(4);
    QCOMPARE(s.layout.tensorParallel, 4);
    QCOMPARE(gpus(), 512LL); // d 128 kept
    QCOMPARE(w.undoStack()->count(), 3);
    // ... but not one after a pause.
    QTest::qWait(int(ScenarioChangeCommand::mergeWindowMs) + 100);
    w.advancedPanel()->tensorParallel()->setValue(8);
    QCOMPARE(w.undoStack()->count(), 4);
    undo->trigger();
    QCOMPARE(s.layout.tensorParallel, 4);
    undo->trigger();
    QCOMPARE(s.layout.tensorParallel, 1);
    QCOMPARE(gpus(), 128LL);
    // A drag that ends where it began leaves no step behind.
    const int steps = w.undoStack()->count();
    w.gpuSlider()->setSliderDown(true);
    w.gpuSlider()->setValue(sliderIndexOf(256));
    w.gpuSlider()->setValue(sliderIndexOf(128));
    w.gpuSlider()->setSliderDown(false);
    QCOMPARE(gpus(), 128LL);
    QCOMPARE(w.undoStack()->count(), steps - 2); // and the two undone tp steps went with it

    // A lesson step is one step too, and so is Reset to defaults, which leaves the lesson.
    w.startLesson(0);
    QCOMPARE(gpus(), 8LL);
    QCOMPARE(s.model.id, std::string("plain-70b"));
    w.session()->setUnit(ByteUnit::GiB);
    reset->trigger();
    QVERIFY(w.lessonText().isEmpty());
    QCOMPARE(s.model.id, std::string("llama3-70b"));
    QCOMPARE(gpus(), 64LL);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
    QCOMPARE(s.modelStatesOnly, false);
    QCOMPARE(w.session()->unit(), ByteUnit::GB);
    undo->trigger(); // back to the lesson's scenario, in GiB
    QCOMPARE(s.model.id, std::string("plain-70b"));
    QCOMPARE(w.session()->unit(), ByteUnit::GiB);
    undo->trigger();
    QCOMPARE(w.session()->unit(), ByteUnit::GB);
    undo->trigger(); // before the lesson
    QCOMPARE(s.model.id, std::string("llama3-70b"));
    QCOMPARE(gpus(), 128LL);
}

void TestMainWindow::numbersTableCopiesAndExports()
{
    MainWindow w;
    w.strategyButtons()->button(3)->click(); // ZeRO-3 on 64 H100s
    // One row (all 64 GPUs hold the same bytes), its total the report's peak; like the
    // donut, the table follows once the change rests.
    const ReportTable &t = w.numbersTable()->table();
    QTRY_COMPARE(t.values.empty() ? 0 : t.values[0][9], w.session()->report().peakBytes());
    QCOMPARE(t.values.size(), std::size_t(1));
    QCOMPARE(t.values[0][9], w.session()->report().peakBytes());
    QCOMPARE(w.numbersTable()->tableWidget()->rowCount(), 1);
    QCOMPARE(w.numbersTable()->tableWidget()->item(0, 0)->text(), QStringLiteral("GPU 0–63"));
    w.numbersTable()->copyMarkdown();
    QVERIFY(QApplication::clipboard()->text().startsWith(QStringLiteral("| GPUs | Count |")));
    w.numbersTable()->copyCsv();
    QVERIFY(QApplication::clipboard()->text().contains(
        QString::number(w.session()->report().peakBytes())));
    QCOMPARE(w.defaultFileName(QStringLiteral(".csv")),
             QStringLiteral("llama3-70b-64xh100-zero3.csv"));
    QTemporaryDir dir;
    QString error;
    const QString csv = dir.filePath(QStringLiteral("n.csv"));
    QVERIFY2(w.exportData(csv, &error), qPrintable(error));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), toCsv(t));
    const QString json = dir.filePath(QStringLiteral("n.json"));
    QVERIFY2(w.exportData(json, &error), qPrintable(error));
    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(j.readAll()).object();
    QCOMPARE(o.value(QStringLiteral("peak_bytes")).toInteger(), w.session()->report().peakBytes());
    QVERIFY(!w.exportData(dir.filePath(QStringLiteral("missing/n.csv")), &error));
    QVERIFY(error.startsWith(QStringLiteral("cannot write")));
}

void TestMainWindow::slidesShowNoLiveControls()
{
    MainWindow w;
    w.resize(1600, 950);
    w.show();
    w.showView(MainWindow::View::Timeline);
    TimelinePanel *panel = w.timelinePanel();
    QVERIFY(panel->controlsShown());
    QVERIFY(panel->scheduleCombo()->isVisible());
    panel->setControlsShown(false);
    QVERIFY(!panel->scheduleCombo()->isVisible());
    QVERIFY(!panel->playButton()->isVisible());
    panel->setControlsShown(true);
    QVERIFY(panel->scheduleCombo()->isVisible());
    // An export hides them for the picture and brings them back.
    QTemporaryDir dir;
    QString error;
    QVERIFY2(w.exportCurrentChart(dir.filePath(QStringLiteral("t.png")), QSize(1920, 1080), &error),
             qPrintable(error));
    QVERIFY(panel->scheduleCombo()->isVisible());
    QCOMPARE(QImage(dir.filePath(QStringLiteral("t.png"))).size(), QSize(1920, 1080));
}

void TestMainWindow::presentationTypeFillsTheRoom()
{
    MainWindow w;
    w.resize(1920, 1080);
    w.show();
    w.startLesson(0);
    w.setPresentationMode(true);
    // 36 pt verdict (48 px at 96 dpi), 24 pt lesson sentence (32 px), 18 pt tabs.
    QCOMPARE(w.verdictLabel()->font().pointSizeF(), 36.0);
    QCOMPARE(w.lessonPlayer()->sentencePointSize(), 24.0);
    QCOMPARE(w.tabs()->tabBar()->font().pointSizeF(), 18.0);
    QVERIFY(!w.numbersTable()->isVisible());
    w.setPresentationMode(false);
    QCOMPARE(w.verdictLabel()->font().pointSizeF(), 20.0);
    QCOMPARE(w.tabs()->tabBar()->font().pointSizeF(), 13.0);
    QCOMPARE(w.lessonPlayer()->sentencePointSize(), 15.0);
    QVERIFY(w.numbersTable()->isVisible());
}

void TestMainWindow::fineTuningChoiceInFront()
{
    MainWindow w;
    w.session()->setModelPreset("llama2-7b");
    w.session()->setGpus(1);
    QButtonGroup *tuning = w.controls()->fineTuningButtons();
    QCOMPARE(tuning->checkedId(), 0); // full fine-tune: every parameter trains
    QCOMPARE(w.session()->report().trainableParameters, std::int64_t(6'738'415'616));
    tuning->button(1)->click();
    // LoRA r 8 on q and v of Llama 2 7B: 32 layers x 2 matrices x 8 x (4,096 + 4,096)
    // = 4,194,304 trainable parameters (Hu et al. 2021; PEFT's default target modules).
    QCOMPARE(w.session()->scenario().fineTuning.loraRank, 8);
    QCOMPARE(w.session()->report().trainableParameters, std::int64_t(4'194'304));
    tuning->button(2)->click();
    QCOMPARE(w.session()->scenario().fineTuning.baseFormat, BaseFormat::Nf4);
    QCOMPARE(w.session()->scenario().fineTuning.loraTargets, int(LoraAllLinear));
    QCOMPARE(tuning->checkedId(), 2);
    // QLoRA as run (resources/data/recipes.json): bf16 adapters, 32-bit paged AdamW.
    QCOMPARE(w.session()->scenario().recipe.id, std::string("qlora"));
    QVERIFY(w.session()->scenario().training.pagedOptimizer);
    QVERIFY(w.session()->report().valid());
    // A QLoRA base takes far less than bf16's 2 B per weight: the weights are below
    // half of 13.5 GB.
    QVERIFY(w.session()->report().groups.front().bytes.weights < 6'738'415'616LL);
    w.undoStack()->undo();
    QCOMPARE(tuning->checkedId(), 1);
    QCOMPARE(w.session()->scenario().recipe.id, std::string("mixed-adam"));
    tuning->button(2)->click();
    tuning->button(0)->click();
    QCOMPARE(w.session()->scenario().fineTuning.loraRank, 0);
    // Leaving QLoRA leaves its recipe: a full fine-tune is back on mixed-precision AdamW.
    QCOMPARE(w.session()->scenario().recipe.id, std::string("mixed-adam"));
    QVERIFY(!w.session()->scenario().training.pagedOptimizer);
    // A base format no preset names (fp16 at rank 0) checks no button.
    w.session()->edit([](Scenario &sc) { sc.fineTuning.baseFormat = BaseFormat::Fp16; });
    QCoreApplication::processEvents();
    QCOMPARE(tuning->checkedId(), -1);
}

/// Edit > Copy as command line (Ctrl+Alt+C): the clipboard gets the shardscope command of
/// the scenario, tab, sweep axis and mode, and the status bar (which the window has no
/// other use for, so it appears only now) shows it; Copy as report command line gives the
/// report's.
void TestMainWindow::copiesTheCommandLine()
{
    MainWindow w;
    showActive(w, QSize(1600, 950));
    QVERIFY(!w.findChild<QStatusBar *>()); // the usual layout has no status bar
    w.session()->setGpus(512);
    w.session()->setZeroStage(ZeroStage::Zero3);
    w.session()->setSweepAxis(SweepAxis::SequenceLength);
    w.showView(MainWindow::View::Sweep);
    w.setPresentationMode(true);
    QGuiApplication::clipboard()->clear();
    QTest::keyClick(&w, Qt::Key_C, Qt::ControlModifier | Qt::AltModifier);
    const QString line = QStringLiteral("shardscope --model llama3-70b --gpu h100-sxm-80gb "
                                        "--recipe mixed-adam --gpus 512 --strategy zero3 "
                                        "--view sweep --present --sweep seq");
    QCOMPARE(QGuiApplication::clipboard()->text(), line);
    QStatusBar *bar = w.findChild<QStatusBar *>();
    QVERIFY(bar && bar->isVisible());
    QCOMPARE(bar->currentMessage(), QStringLiteral("Copied: ") + line);
    // SHARDSCOPE_COPY_SCREENSHOT=FILE keeps the window with its message, to look at.
    if (const QString keep = qEnvironmentVariable("SHARDSCOPE_COPY_SCREENSHOT"); !keep.isEmpty()) {
        QTest::qWait(200); // the new bar laid out, as on a screen
        w.settle();
        w.grab().save(keep);
    }

    auto *report = w.findChild<QAction *>(QStringLiteral("copyReportCommandLine"));
    QVERIFY(report);
    w.showView(MainWindow::View::Memory);
    w.session()->setUnit(ByteUnit::GiB);
    report->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(),
             QStringLiteral("shardscope report --model llama3-70b --gpu h100-sxm-80gb --recipe "
                            "mixed-adam --gpus 512 --strategy zero3 --unit gib"));
    // The bar goes again with its message.
    bar->clearMessage();
    QVERIFY(!bar->isVisible());
}

/// File > Export chart to an .html name: the tab's chart as one page with its numbers and
/// the window's command line; a tab without a registered chart is refused in one line.
void TestMainWindow::exportsAnHtmlPage()
{
    MainWindow w;
    showActive(w, QSize(1600, 950));
    w.showView(MainWindow::View::Compare);
    QTemporaryDir dir;
    const QString page = dir.filePath(QStringLiteral("compare.html"));
    QString error;
    QVERIFY2(w.exportCurrentChart(page, QSize(1920, 1080), &error), qPrintable(error));
    const QByteArray html = test::readFile(page);
    QCOMPARE(html.count("<svg"), 1);
    QCOMPARE(html.count("<tr><td>"), 4); // DDP, ZeRO-1, ZeRO-2, ZeRO-3
    QVERIFY(html.contains(w.commandLine().toHtmlEscaped().toUtf8()));
    QVERIFY(w.commandLine().endsWith(QStringLiteral("--view compare")));
    w.showView(MainWindow::View::Live);
    QVERIFY(!w.exportCurrentChart(page, QSize(1920, 1080), &error));
    QVERIFY2(error.startsWith(QStringLiteral("An HTML page holds the Memory")), qPrintable(error));
}

void TestMainWindow::summaryCountsEveryNote()
{
    // FP8 on an A100 (the catalog's fp8_tflops 0): two notes, FP8's implementation and the
    // card's missing FP8 peak. The first is in the summary, the second counted after it,
    // and both in its tooltip; one note alone leaves the tooltip empty.
    MainWindow w;
    auto *summary = w.findChild<QLabel *>(QStringLiteral("summary"));
    QVERIFY(summary);
    Scenario s = w.session()->scenario();
    w.session()->setGpu("a100-80gb");
    s = w.session()->scenario();
    s.training.fp8 = Fp8Recipe::Delayed;
    w.session()->setScenario(s);
    w.settle();
    QCOMPARE(w.session()->report().notes.size(), std::size_t(2));
    QVERIFY2(summary->text().contains(QStringLiteral("FP8: Transformer Engine delayed scaling")),
             qPrintable(summary->text()));
    QVERIFY2(summary->text().endsWith(QStringLiteral(" 1 more note (hover to read).")),
             qPrintable(summary->text()));
    QVERIFY2(summary->toolTip().contains(QStringLiteral("<br>FP8 on NVIDIA A100")),
             qPrintable(summary->toolTip()));
    w.session()->setGpu("h100-sxm-80gb");
    w.settle();
    QCOMPARE(w.session()->report().notes.size(), std::size_t(1));
    QVERIFY(!summary->text().contains(QStringLiteral("more note")));
    QVERIFY(summary->toolTip().isEmpty());
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
