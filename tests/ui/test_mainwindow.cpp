// Drives the window's controls programmatically and checks what the chart and
// the verdict show (issue 2: DDP overflows a 70B, ZeRO-3 fits on 64 H100s).
#include "advancedpanel.h"
#include "breakdownview.h"
#include "comparechart.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "timelinepanel.h"

#include <QAbstractButton>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLocale>
#include <QPieSeries>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace shardscope;

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void startsOnSeventyBOverflowingUnderDdp();
    void strategyButtonsReachZero3Fit();
    void gpuSliderUpdatesWhileDragging();
    void modelSliderScalesAnArchitecture();
    void presetSnapsTheSlider();
    void spinBoxAndSliderAgree();
    void recipeBytesAreEditable();
    void unitSwitchRedrawsInGib();
    void groupsWhenTooManyGpus();
    void advancedLayoutMakesStages();
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
    void exportsTheCurrentChart();
};

void TestMainWindow::startsOnSeventyBOverflowingUnderDdp()
{
    MainWindow w;
    QCOMPARE(w.modelCombo()->currentData().toString(), QStringLiteral("llama3-70b"));
    QCOMPARE(w.gpuSpin()->value(), 64);
    // Llama 3 70B: 70,553,706,496 x 16 B = 1,128.86 GB of model states per GPU under DDP,
    // plus 8.73 GB of activations (tests/app/test_reportcommand.cpp writes them out),
    // 0.54 GB CUDA context, a 25 MiB DDP bucket, and 5 % fragmentation reserve:
    // (1,128.86 + 8.73 + 0.537 + 0.026) x 1.05 = 1,195.06 GB, 1,115 GB over 80 GB.
    QCOMPARE(w.verdictLabel()->text(),
             QStringLiteral("Overflows by 1,115 GB per GPU: DDP keeps a full copy on every GPU"));
    QCOMPARE(w.chart()->barCount(), 1);
    const MemoryReport &r = w.scenarioModel()->report();
    QCOMPARE(w.chart()->stackTop(0), double(r.peakBytes()) / 1e9);
    QCOMPARE(w.chart()->componentHeight(0, Component::Weights), 70553706496.0 * 2 / 1e9);
    QCOMPARE(w.chart()->componentHeight(0, Component::Activations), 8729395200.0 / 1e9);
    QCOMPARE(w.chart()->capacityValue(), 80.0);
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
        QCOMPARE(int(w.scenarioModel()->scenario().layout.zeroStage), z);
        QCOMPARE(w.chart()->stackTop(0), expected[z]);
    }
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 17.5 GB of 80 GB per GPU"));
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
    const auto counts = MainWindow::gpuSliderCounts();
    const int at8 = int(counts.indexOf(8)), at16 = int(counts.indexOf(16));
    QVERIFY(at8 >= 0 && at16 > at8);
    w.gpuSlider()->setSliderDown(true); // a drag in progress: no release yet
    w.gpuSlider()->setValue(at8);
    QCOMPARE(w.chart()->stackTop(0), 140.0); // 16 B x 70e9 / 8 = 140 GB
    QVERIFY(w.verdictLabel()->text().startsWith(QStringLiteral("Overflows by 60 GB per GPU")));
    w.gpuSlider()->setValue(at16);
    QCOMPARE(w.chart()->stackTop(0), 70.0);
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 70 GB of 80 GB per GPU"));
    QCOMPARE(w.gpuSpin()->value(), 16);
    w.gpuSlider()->setSliderDown(false);
}

void TestMainWindow::modelSliderScalesAnArchitecture()
{
    MainWindow w;
    const int pos = MainWindow::modelSliderPosition(7'000'000'000);
    w.modelSlider()->setValue(pos);
    QVERIFY(w.scenarioModel()->modelIsScaled());
    QCOMPARE(w.modelCombo()->currentData().toString(), QStringLiteral("scaled"));
    QVERIFY(w.modelInfoLabel()->text().startsWith(
        QStringLiteral("Scaled Llama-style shape, not a published model")));
    const auto params = w.scenarioModel()->scenario().model.parameters();
    QVERIFY(params > 6'000'000'000 && params < 8'000'000'000);
    QCOMPARE(w.chart()->componentHeight(0, Component::OptimizerStates), double(params) * 8 / 1e9);
    QVERIFY(w.chart()->componentHeight(0, Component::Activations) > 0); // it has a shape
    // Slider ends: 0.1B and 2T.
    QCOMPARE(MainWindow::modelSliderParameters(0), 100'000'000LL);
    QCOMPARE(MainWindow::modelSliderParameters(MainWindow::modelSliderSteps), 2'000'000'000'000LL);
}

void TestMainWindow::presetSnapsTheSlider()
{
    MainWindow w;
    const int index = w.modelCombo()->findData(QStringLiteral("llama3.1-405b"));
    w.modelCombo()->setCurrentIndex(index);
    emit w.modelCombo()->activated(index);
    QVERIFY(!w.scenarioModel()->modelIsScaled());
    QCOMPARE(w.modelSlider()->value(), MainWindow::modelSliderPosition(405853388800));
    QCOMPARE(qint64(w.scenarioModel()->scenario().model.parameters()), 405853388800LL);
}

void TestMainWindow::spinBoxAndSliderAgree()
{
    MainWindow w;
    w.gpuSpin()->setValue(1000);
    QCOMPARE(qint64(w.scenarioModel()->scenario().layout.gpus), 1000LL);
    QCOMPARE(MainWindow::gpuSliderCounts().value(w.gpuSlider()->value()), 1024);
    QCOMPARE(MainWindow::gpuSliderCounts(32).first(), 32);
    QCOMPARE(MainWindow::gpuSliderCounts(32).last(), 16384);
    QCOMPARE(MainWindow::gpuSliderCounts().last(), 16384);
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
    w.scenarioModel()->setUnit(ByteUnit::GiB);
    QCOMPARE(w.chart()->capacityValue(), 80e9 / 1073741824.0);
    QCOMPARE(w.chart()->capacityLabel(), QStringLiteral("H100\n80 GB\n= 74.5 GiB"));
    QVERIFY(w.verdictLabel()->text().contains(QStringLiteral("of 74.5 GiB")));
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
    const Scenario &s = w.scenarioModel()->scenario();
    QCOMPARE(qint64(s.layout.gpus), 64LL);
    QCOMPARE(qint64(s.layout.dataParallel()), 2LL);
    QCOMPARE(w.advancedPanel()->layoutLabel()->text(),
             QStringLiteral("64 GPUs = d 2 × t 8 × p 4 × c 1; global batch 16 sequences"));
    QCOMPARE(w.chart()->barCount(), 4); // one bar per stage (64 GPUs > 16)
    QCOMPARE(w.chart()->barLabel(3), QStringLiteral("Stage 3\nGPU 48–63\n× 16"));
    QCOMPARE(w.chart()->groupOfBar(3), 3);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(w.chart()->stackTop(i),
                 double(w.scenarioModel()->report().groups[i].totalBytes()) / 1e9);
    w.gpuSlider()->setValue(w.gpuSlider()->value() + 1);
    QCOMPARE(qint64(s.layout.gpus), 96LL);
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
    const Scenario &s = w.scenarioModel()->scenario();
    QCOMPARE(s.training.lossKernel, LossKernel::Eager);
    // Llama 3 70B, s 4096, b 1, t 8: 2 x 4096 x 16,032 x 4 = 525,336,576 bytes more on the
    // last stage (plus its 5% fragmentation reserve); the first stage is unchanged.
    const GpuGroup &last = w.scenarioModel()->report().groups[3];
    QCOMPARE(qint64(last.activations.lossBackward), 525'336'576LL);
    QVERIFY(w.chart()->stackTop(3) - before > 0.525);
    QCOMPARE(w.chart()->stackTop(0), firstBefore);
}

void TestMainWindow::customRecipeAndGpuAreNamed()
{
    MainWindow w;
    Scenario s = w.scenarioModel()->scenario();
    s.recipe.id = "claim-12b";
    s.recipe.displayName = "12 B/param (the claim's own figure)";
    s.recipe.masterWeightBytes = 0;
    s.gpu.id = "h100-96gb";
    s.gpu.name = "H100 96 GB (Grand Teton)";
    s.gpu.capacityBytes = 96'000'000'000;
    w.scenarioModel()->setScenario(s);
    // Neither box may name a preset the scenario does not use.
    QCOMPARE(w.recipeCombo()->currentText(), QStringLiteral("12 B/param (the claim's own figure)"));
    QCOMPARE(w.gpuCombo()->currentText(), QStringLiteral("H100 96 GB (Grand Teton)"));
    // Back to presets: the boxes follow, and the custom entries stay available once.
    w.scenarioModel()->setRecipe("mixed-adam");
    w.scenarioModel()->setGpu("h100-sxm-80gb");
    QCOMPARE(w.recipeCombo()->currentData().toString(), QStringLiteral("mixed-adam"));
    QCOMPARE(w.gpuCombo()->currentData().toString(), QStringLiteral("h100-sxm-80gb"));
    QCOMPARE(w.gpuCombo()->findData(QStringLiteral("custom-gpu")), w.gpuCombo()->count() - 1);
}

void TestMainWindow::longLessonTitlesWrap()
{
    // Lesson 6 has the longest title; at the default 1600 pixels it must wrap, not widen
    // the window past the screen.
    MainWindow w;
    w.resize(1600, 950);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
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
    QCOMPARE(w.verdictLabel()->text(),
             QStringLiteral("Cannot estimate: activations: heads (64) is not divisible by tensor "
                            "parallel size (3)"));
    QCOMPARE(w.chart()->barCount(), 0);
    QVERIFY(!w.verdictLabel()->text().contains(QStringLiteral("nan")));
    w.advancedPanel()->tensorParallel()->setValue(8);
    QVERIFY(w.scenarioModel()->report().valid());
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
    const GpuGroup &g0 = w.scenarioModel()->report().groups[0];
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
    QCOMPARE(w.chart()->style().fontScale, 1.5);
    QCOMPARE(w.chart()->style().ink, QColor(Qt::black));
    QCOMPARE(w.verdictLabel()->font().pointSizeF(), 30.0);
    w.setDarkTheme(true);
    QCOMPARE(w.chart()->style().background, ChartStyle::dark().background);
    QVERIFY(w.palette().color(QPalette::Window).lightness() < 60);
    w.setPresentationMode(false);
    QVERIFY(w.recipeCombo()->isVisible());
    QCOMPARE(w.chart()->style().fontScale, 1.0);
    w.setDarkTheme(false);
    QCOMPARE(w.chart()->style().background, QColor(Qt::white));
}

void TestMainWindow::customModelNamesItself()
{
    MainWindow w;
    Scenario s = w.scenarioModel()->scenario();
    s.model = Model{};
    s.model.id = "custom";
    s.model.displayName = "70B (plain count)";
    s.model.plainParameters = 70'000'000'000;
    w.scenarioModel()->setScenario(s);
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
    QCOMPARE(w.scenarioModel()->scenario().layout.pipelineParallel, 4);
    QCOMPARE(qint64(w.scenarioModel()->scenario().layout.gpus), 32LL); // d 8 kept
    QCOMPARE(w.chart()->barCount(), 4);                                // 32 GPUs: one bar per stage
}

void TestMainWindow::lessonsStepThroughTheSeeds()
{
    MainWindow w;
    QVERIFY(w.lessonText().isEmpty());
    w.startLesson(0); // resources/lessons/01-ddp-never-fits.json
    QCOMPARE(w.lessonStep(), 0);
    QVERIFY(!w.lessonText().isEmpty());
    QVERIFY(w.verdictLabel()->text().contains(QStringLiteral("1,040 GB")));
    // Steps 2-6: 64 and 1,024 GPUs under DDP, then ZeRO-1, 2, 3 on 64 GPUs.
    for (int i = 0; i < 5; ++i)
        QVERIFY(w.stepLesson(+1));
    QCOMPARE(w.lessonStep(), 5);
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 17.5 GB of 80 GB per GPU"));
    while (w.stepLesson(+1)) {
    }
    // The last step counts Llama 3 70B's activations and buffers too (the lesson's
    // sentence states 34.9 GB; tests/io/test_lesson.cpp checks it against the engine).
    QCOMPARE(w.verdictLabel()->text(), QStringLiteral("Fits: 34.9 GB of 80 GB per GPU"));
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
    const qint64 peak = w.scenarioModel()->report().peakBytes();
    const QString path = dir.filePath(QStringLiteral("s.json"));
    QString error;
    QVERIFY2(w.saveScenario(path, &error), qPrintable(error));

    MainWindow other;
    QVERIFY2(other.openFile(path, &error), qPrintable(error));
    QCOMPARE(qint64(other.scenarioModel()->report().peakBytes()), peak);
    QCOMPARE(other.scenarioModel()->scenario().layout.pipelineParallel, 4);

    // A truncated file is refused and nothing changes.
    QFile bad(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"schema\": \"shardscope-scenario\", \"version\": 1, \"gpus\": ");
    bad.close();
    QVERIFY(!other.openFile(bad.fileName(), &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(qint64(other.scenarioModel()->report().peakBytes()), peak);
    QVERIFY(!other.openFile(dir.filePath(QStringLiteral("missing.json")), &error));
    QVERIFY2(error.startsWith(QStringLiteral("missing.json: cannot open")), qPrintable(error));
}

void TestMainWindow::exportsTheCurrentChart()
{
    QTemporaryDir dir;
    MainWindow w;
    w.resize(1600, 950);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
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
}

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
