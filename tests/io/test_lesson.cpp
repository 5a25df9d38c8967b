// Lessons: the shipped lessons load, every number a step's sentence states is what
// the engine computes for that step, and malformed lesson files are refused with a
// message naming the file and the step.
#include "estimate.h"
#include "format.h"
#include "lesson.h"
#include "qtext.h"
#include "schedule.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QTest>

using namespace shardscope;

namespace {

/// The pipeline bubble (share of the step) of a scenario, "42.9%", as lessons state it.
QString bubbleText(const Scenario &s)
{
    ScheduleParams p;
    p.schedule = s.training.schedule;
    p.stages = s.layout.pipelineParallel;
    p.microBatches = int(s.training.microBatches);
    p.chunks = s.training.schedule == PipelineSchedule::Interleaved1F1B ? s.training.chunks : 1;
    const Timeline t = schedule(p);
    return QString::number(t.bubbleFraction * 100, 'f', 1) + u'%';
}

/// Checks every "expect" entry of every step against the engine, and that the
/// step's sentence states each number it expects. Returns the failures, one a line.
QStringList checkLesson(const Lesson &lesson)
{
    QStringList failures;
    for (int i = 0; i < int(lesson.steps.size()); ++i) {
        const LessonStep &step = lesson.steps[std::size_t(i)];
        const ScenarioDocument d = lessonDocument(lesson, i);
        const MemoryReport r = estimate(d.scenario);
        const QString where = lesson.fileName + QStringLiteral(", step %1").arg(i + 1);
        if (!r.valid()) {
            failures << where + QStringLiteral(": ") + toQString(r.error);
            continue;
        }
        const GpuGroup &peak = *r.peakGroup();
        for (auto it = step.expect.begin(); it != step.expect.end(); ++it) {
            const QString key = it.key();
            QString actual;
            if (key == QLatin1String("peak"))
                actual = toQString(formatBytes(r.peakBytes(), d.unit));
            else if (key == QLatin1String("verdict"))
                actual = toQString(verdictText(d.scenario, r, d.unit));
            else if (key == QLatin1String("model_states"))
                actual = toQString(formatBytes(peak.bytes.modelStates(), d.unit));
            else if (key == QLatin1String("activations"))
                actual = toQString(formatBytes(peak.bytes.activations, d.unit));
            else if (key == QLatin1String("host_per_node"))
                actual = toQString(formatBytes(r.hostBytesPerNode, d.unit));
            else if (key == QLatin1String("bubble"))
                actual = bubbleText(d.scenario);
            if (key == QLatin1String("fits")) {
                if (r.fits() != it->toBool())
                    failures << where + QStringLiteral(": fits is %1").arg(r.fits());
            } else if (key == QLatin1String("peak_in_flight")) {
                if (r.groups.front().peakInFlight != it->toInt())
                    failures << where + QStringLiteral(": stage 0 holds %1 in flight, expected %2")
                                            .arg(r.groups.front().peakInFlight)
                                            .arg(it->toInt());
            } else if (actual != it->toString()) {
                failures << where + QStringLiteral(": %1 is \"%2\", expected \"%3\"")
                                        .arg(key, actual, it->toString());
            } else if (key != QLatin1String("verdict") && !step.text.contains(actual)) {
                failures << where + QStringLiteral(": the sentence does not state %1 (%2)")
                                        .arg(key, actual);
            }
        }
    }
    return failures;
}

/// The built-in lesson `id`, or nullptr; the list lives as long as the test.
const Lesson *builtInLesson(const char *id)
{
    static const auto lessons = builtInLessons();
    for (const Lesson &l : lessons)
        if (l.id == QLatin1String(id))
            return &l;
    return nullptr;
}

QByteArray lessonJson(const QJsonArray &steps, const QJsonObject &extra = {})
{
    QJsonObject o{{"schema", "shardscope-lesson"}, {"version", 1},  {"id", "t"}, {"title", "T"},
                  {"sources", QJsonArray{"s"}},    {"steps", steps}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        o.insert(it.key(), it.value());
    return QJsonDocument(o).toJson();
}

} // namespace

class TestLesson : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void builtInLessonsLoad();
    void everyStatedNumberMatchesTheEngine();
    void ddpNeverFits();
    void zero3On8H100s();
    void thirteenBOnA100s();
    void pipelineBubble();
    void activationMemory();
    void applyStepPatchesOnlyItsKeys();
    void viewCarriesOver();
    void malformed_data();
    void malformed();
    void handWrittenLessonFile();
    void versionMissingReadsAsOne();
    void stepPatchHoldsOnlyTheChanges();
    void roundTripThroughJson();
    void toldByContent();
};

void TestLesson::builtInLessonsLoad()
{
    QStringList errors;
    const std::vector<Lesson> lessons = builtInLessons(&errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(u'\n')));
    QCOMPARE(int(lessons.size()), 6);
    QCOMPARE(lessons[0].id, QStringLiteral("ddp-never-fits"));
    QCOMPARE(lessons[1].id, QStringLiteral("zero3-on-8-h100s"));
    QCOMPARE(lessons[2].id, QStringLiteral("13b-on-4-a100-40gb"));
    QCOMPARE(lessons[3].id, QStringLiteral("pipeline-bubble"));
    QCOMPARE(lessons[4].id, QStringLiteral("activation-memory"));
    QCOMPARE(lessons[5].id, QStringLiteral("logits-and-the-loss"));
    for (const Lesson &l : lessons) {
        QVERIFY(!l.sources.isEmpty());
        QVERIFY(l.steps.size() >= 4);
        for (const LessonStep &s : l.steps)
            QVERIFY2(!s.expect.isEmpty(), qPrintable(l.fileName + u' ' + s.title));
    }
}

void TestLesson::everyStatedNumberMatchesTheEngine()
{
    // Every lesson's failures at once: a change to the engine lists each stale number.
    QStringList failures;
    for (const Lesson &l : builtInLessons())
        failures << checkLesson(l);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(u'\n')));
}

void TestLesson::ddpNeverFits()
{
    const Lesson *l = builtInLesson("ddp-never-fits");
    QVERIFY(l);
    // DDP: 70e9 x 16 = 1,120 GB on every GPU at 8, 64 and 1,024 GPUs.
    for (int step : {0, 1, 2}) {
        const ScenarioDocument d = lessonDocument(*l, step);
        QCOMPARE(d.scenario.layout.zeroStage, ZeroStage::Ddp);
        QVERIFY(d.scenario.modelStatesOnly);
        QCOMPARE(estimate(d.scenario).peakBytes(), std::int64_t(1'120'000'000'000));
    }
    QCOMPARE(lessonDocument(*l, 2).scenario.layout.gpus, std::int64_t(1024));
    // 64 GPUs: ZeRO-1 280 + 13.125, ZeRO-2 140 + 15.3125, ZeRO-3 17.5 GB.
    QCOMPARE(estimate(lessonDocument(*l, 3).scenario).peakBytes(), std::int64_t(293'125'000'000));
    QCOMPARE(estimate(lessonDocument(*l, 4).scenario).peakBytes(), std::int64_t(155'312'500'000));
    const MemoryReport z3 = estimate(lessonDocument(*l, 5).scenario);
    QCOMPARE(z3.peakBytes(), std::int64_t(17'500'000'000));
    QVERIFY(z3.fits());
    QCOMPARE(lessonViewAt(*l, 6), LessonView::Compare);
}

void TestLesson::zero3On8H100s()
{
    const Lesson *l = builtInLesson("zero3-on-8-h100s");
    QVERIFY(l);
    const MemoryReport claim = estimate(lessonDocument(*l, 0).scenario);
    QCOMPARE(claim.peakBytes(), std::int64_t(140'000'000'000)); // 1,120 GB / 8
    QVERIFY(!claim.fits());
    // Checked against the 81,559 MiB the H100's driver reports: 140e9 - 85,520,809,984
    // = 54,479,190,016 bytes over.
    QCOMPARE(claim.capacityBytes, std::int64_t(81'559) * 1'048'576);
    QCOMPARE(claim.headroomBytes(), std::int64_t(-54'479'190'016));
    // GB against GiB: the same scenario in GiB. 80e9 / 2^30 = 74.5 GiB on the box,
    // 81,559 / 1,024 = 79.6 GiB usable, 140e9 / 2^30 = 130.4 GiB per card.
    const ScenarioDocument gib = lessonDocument(*l, 1);
    QCOMPARE(gib.unit, ByteUnit::GiB);
    QCOMPARE(estimate(gib.scenario).peakBytes(), std::int64_t(140'000'000'000));
    QCOMPARE(formatBytes(gib.scenario.gpu.capacityBytes, ByteUnit::GiB), std::string("74.5 GiB"));
    QCOMPARE(formatBytes(gib.scenario.gpu.usableBytes(), ByteUnit::GiB), std::string("79.6 GiB"));
    QCOMPARE(formatBytes(gib.scenario.gpu.usableBytes(), ByteUnit::GB), std::string("85.5 GB"));
    QCOMPARE(lessonDocument(*l, 2).unit, ByteUnit::GB);
    // Optimizer offload: bf16 weight shards stay, 70e9 x 2 / 8 = 17.5 GB; host
    // 70e9 x 14 / 8 x 8 GPUs per node = 980 GB.
    const MemoryReport offload = estimate(lessonDocument(*l, 3).scenario);
    QCOMPARE(offload.peakBytes(), std::int64_t(17'500'000'000));
    QCOMPARE(offload.hostBytesPerNode, std::int64_t(980'000'000'000));
    // 16 GPUs, and pure bf16 AdamW on 8: 70 GB before activations.
    QCOMPARE(estimate(lessonDocument(*l, 4).scenario).peakBytes(), std::int64_t(70'000'000'000));
    QCOMPARE(lessonDocument(*l, 5).scenario.recipe.totalBytesPerParameter(), std::int64_t(8));
    QCOMPARE(estimate(lessonDocument(*l, 5).scenario).peakBytes(), std::int64_t(70'000'000'000));
    QVERIFY(!estimate(lessonDocument(*l, 6).scenario).fits());
}

void TestLesson::thirteenBOnA100s()
{
    const Lesson *l = builtInLesson("13b-on-4-a100-40gb");
    QVERIFY(l);
    const ScenarioDocument first = lessonDocument(*l, 0);
    QCOMPARE(first.scenario.gpu.capacityBytes, std::int64_t(40'000'000'000));
    QCOMPARE(estimate(first.scenario).peakBytes(), std::int64_t(52'000'000'000)); // 13e9 x 16 / 4
    QCOMPARE(estimate(lessonDocument(*l, 1).scenario).peakBytes(),
             std::int64_t(39'000'000'000)); // 13e9 x 12 / 4
    QVERIFY(!estimate(lessonDocument(*l, 2).scenario).fits());
}

void TestLesson::pipelineBubble()
{
    const Lesson *l = builtInLesson("pipeline-bubble");
    QVERIFY(l);
    QCOMPARE(lessonViewAt(*l, 0), LessonView::Timeline);
    QCOMPARE(bubbleText(lessonDocument(*l, 0).scenario), QStringLiteral("42.9%"));
    QCOMPARE(bubbleText(lessonDocument(*l, 1).scenario), QStringLiteral("8.6%"));
    const Scenario s = lessonDocument(*l, 1).scenario;
    QCOMPARE(s.layout.tensorParallel, 8);
    QCOMPARE(s.layout.pipelineParallel, 4);
    QCOMPARE(s.layout.dataParallel(), std::int64_t(2));
    // GPipe holds all m = 32 micro-batches, 1F1B at most p = 4 on stage 0.
    QCOMPARE(estimate(lessonDocument(*l, 2).scenario).groups.front().peakInFlight, 32);
    const MemoryReport oneF = estimate(lessonDocument(*l, 3).scenario);
    QCOMPARE(oneF.groups.front().peakInFlight, 4);
    QCOMPARE(oneF.groups.back().peakInFlight, 1);
    QVERIFY(oneF.fits());
    QCOMPARE(lessonViewAt(*l, 3), LessonView::Memory);
}

void TestLesson::activationMemory()
{
    const Lesson *l = builtInLesson("activation-memory");
    QVERIFY(l);
    auto acts = [l](int step) {
        return estimate(lessonDocument(*l, step).scenario).groups.front().bytes.activations;
    };
    // none < 2x at double length (flash: linear in s); no flash: quadratic scores.
    QVERIFY(acts(1) > acts(0) * 19 / 10 && acts(1) < acts(0) * 21 / 10);
    QVERIFY(acts(2) > acts(1) * 4);
    // Recomputation: none > selective > full.
    QVERIFY(acts(3) < acts(2) / 3);
    QVERIFY(acts(4) < acts(3) / 4);
    QCOMPARE(lessonDocument(*l, 4).scenario.training.recompute, Recompute::Full);
    QCOMPARE(lessonDocument(*l, 2).scenario.training.sequenceLength, std::int64_t(8192));
}

void TestLesson::applyStepPatchesOnlyItsKeys()
{
    LessonStep step;
    step.patch = QJsonObject{{"gpus", 128}, {"strategy", "zero3"}};
    Scenario base = defaultScenario();
    base.training.sequenceLength = 2048;
    const Scenario s = applyStep(base, step);
    QCOMPARE(s.layout.gpus, std::int64_t(128)); // from 64
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(s.training.sequenceLength, std::int64_t(2048));
    QCOMPARE(s.model.id, base.model.id);
    // A plain count with a base that uses tensor parallelism: patched all the same,
    // and the engine says why it cannot be drawn.
    base.layout.gpus = 8;
    base.layout.tensorParallel = 8;
    step.patch = QJsonObject{{"model", "plain-70b"}};
    const Scenario plain = applyStep(base, step);
    QCOMPARE(plain.model.id, std::string("plain-70b"));
    QVERIFY(!estimate(plain).valid());
}

void TestLesson::viewCarriesOver()
{
    QString error;
    const QJsonObject a{{"title", "a"}, {"text", "A."}};
    const QJsonObject b{{"title", "b"}, {"text", "B."}, {"view", "compare"}};
    const auto l = lessonFromJson(lessonJson({a, b, a}), QStringLiteral("v.json"), &error);
    QVERIFY2(l, qPrintable(error));
    QCOMPARE(lessonViewAt(*l, 0), LessonView::Memory);
    QCOMPARE(lessonViewAt(*l, 1), LessonView::Compare);
    QCOMPARE(lessonViewAt(*l, 2), LessonView::Compare);
    QCOMPARE(lessonViewAt(*l, 99), LessonView::Compare);
}

void TestLesson::malformed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QJsonObject ok{{"title", "t"}, {"text", "One sentence."}};
    auto with = [&ok](const char *key, const QJsonValue &v) {
        QJsonObject o = ok;
        o.insert(QLatin1String(key), v);
        return o;
    };
    QTest::newRow("not JSON") << QByteArray("{\"schema\": ") << "x.json: not valid JSON";
    QTest::newRow("unknown top key")
        << lessonJson({ok}, {{"author", "me"}}) << "x.json: unknown key \"author\"";
    QTest::newRow("wrong schema") << lessonJson({ok}, {{"schema", "shardscope-scenario"}})
                                  << "x.json: \"schema\" must be \"shardscope-lesson\"";
    QTest::newRow("version 2")
        << lessonJson({ok}, {{"version", 2}})
        << "x.json: \"version\" 2 is newer than this ShardScope reads (1); update ShardScope";
    QTest::newRow("version text") << lessonJson({ok}, {{"version", "1"}})
                                  << "x.json: \"version\" must be a whole number from 1";
    QTest::newRow("version 1.5") << lessonJson({ok}, {{"version", 1.5}})
                                 << "x.json: \"version\" must be a whole number from 1";
    QTest::newRow("gpus as text")
        << lessonJson({ok, with("set", QJsonObject{{"gpus", "64"}})})
        << "x.json, step 2: \"gpus\" must be a whole number from 1 to 1048576 (got \"64\")";
    QTest::newRow("no steps") << lessonJson({}) << "x.json: \"steps\" must be a non-empty list";
    QTest::newRow("no sources") << lessonJson({ok}, {{"sources", QJsonArray{}}})
                                << "x.json: \"sources\" must be a non-empty list";
    QTest::newRow("unknown step key")
        << lessonJson({ok, with("explain", "x")}) << "x.json, step 2: unknown key \"explain\"";
    QTest::newRow("bad view") << lessonJson({with("view", "pie")})
                              << "x.json, step 1: \"view\" must be memory, timeline or compare";
    QTest::newRow("two sentences") << lessonJson({with("text", "DDP overflows. ZeRO-3 fits.")})
                                   << "x.json, step 1: \"text\" must be one sentence";
    QTest::newRow("no full stop") << lessonJson({with("text", "DDP overflows")})
                                  << "x.json, step 1: \"text\" must be one sentence";
    QTest::newRow("empty text") << lessonJson({with("text", "")})
                                << "x.json, step 1: \"text\" must be a non-empty string";
    QTest::newRow("unknown scenario key")
        << lessonJson({ok, ok, with("set", QJsonObject{{"gpu_count", 8}})})
        << "x.json, step 3: unknown key \"gpu_count\"";
    QTest::newRow("negative gpus") << lessonJson({with("set", QJsonObject{{"gpus", -8}})})
                                   << "x.json, step 1: \"gpus\" must be a whole number from 1";
    QTest::newRow("bad strategy") << lessonJson({with("set", QJsonObject{{"strategy", "fsdp2"}})})
                                  << "x.json, step 1: \"strategy\" must be one of";
    QTest::newRow("impossible layout")
        << lessonJson({with("set", QJsonObject{{"gpus", 12}, {"tp", 8}})})
        << "x.json, step 1: gpus (12) is not divisible by t x p x c";
    QTest::newRow("bad start") << lessonJson({ok}, {{"start", QJsonObject{{"model", "gpt5"}}}})
                               << "x.json, \"start\": \"model\": unknown preset";
    QTest::newRow("unknown expect") << lessonJson({with("expect", QJsonObject{{"total", "1 GB"}})})
                                    << "x.json, step 1, \"expect\": unknown key \"total\"";
    QTest::newRow("expect wrong type") << lessonJson({with("expect", QJsonObject{{"fits", "yes"}})})
                                       << "x.json, step 1, \"expect\": \"fits\" has the wrong type";
}

void TestLesson::malformed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!lessonFromJson(json, QStringLiteral("x.json"), &error));
    QVERIFY2(error.startsWith(message), qPrintable(error));
    QVERIFY(!error.contains(u'\n'));
}

void TestLesson::handWrittenLessonFile()
{
    // The example of docs/lessons.md, as a teacher would write it: no "id", no "sources".
    QString error;
    const auto l =
        loadLessonFile(QFINDTESTDATA("data/lessons/sharding-in-three-steps.json"), &error);
    QVERIFY2(l, qPrintable(error));
    QCOMPARE(l->title, QStringLiteral("Sharding a 70B in three steps"));
    QCOMPARE(l->id, QStringLiteral("sharding-in-three-steps")); // from the file name
    QVERIFY(l->sources.isEmpty());
    QCOMPARE(int(l->steps.size()), 3);
    QCOMPARE(l->steps[1].title, QStringLiteral("Shard the optimizer"));
    QCOMPARE(
        l->steps[2].text,
        QStringLiteral("ZeRO-3 splits weights and gradients too, leaving 17.5 GB on each card."));
    // Its numbers are the engine's: 70e9 x 16 B = 1,120 GB under DDP; ZeRO-1 on 64 GPUs
    // 70e9 x (2 + 2 + 12/64) = 293.1 GB; ZeRO-3 70e9 x 16 / 64 = 17.5 GB.
    const QStringList failures = checkLesson(*l);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(u'\n')));
    QCOMPARE(lessonDocument(*l, 1).scenario.layout.gpus, std::int64_t(64)); // step 1 carries
    QCOMPARE(lessonDocument(*l, 2).scenario.layout.zeroStage, ZeroStage::Zero3);

    // The malformed fixture: one line naming the file, the step and the field.
    QVERIFY(!loadLessonFile(QFINDTESTDATA("data/lessons/bad-gpus.json"), &error));
    QCOMPARE(error, QStringLiteral("bad-gpus.json, step 2: \"gpus\" must be a whole number from "
                                   "1 to 1048576 (got \"sixty-four\")"));
}

void TestLesson::versionMissingReadsAsOne()
{
    QJsonObject o =
        QJsonDocument::fromJson(lessonJson({QJsonObject{{"title", "t"}, {"text", "A."}}})).object();
    o.remove(QStringLiteral("version"));
    QString error;
    const auto l = lessonFromJson(QJsonDocument(o).toJson(), QStringLiteral("v.json"), &error);
    QVERIFY2(l, qPrintable(error));
    QCOMPARE(lessonToJson(*l).value(QStringLiteral("version")).toInt(), lessonFileVersion);
}

void TestLesson::stepPatchHoldsOnlyTheChanges()
{
    const ScenarioDocument base{defaultScenario(), ByteUnit::GB};
    ScenarioDocument next = base;
    next.scenario.layout.gpus = 128;
    next.scenario.layout.zeroStage = ZeroStage::Zero3;
    QCOMPARE(lessonStepPatch(base, next), (QJsonObject{{"gpus", 128}, {"strategy", "zero3"}}));
    next = base;
    next.unit = ByteUnit::GiB;
    QCOMPARE(lessonStepPatch(base, next), (QJsonObject{{"unit", "gib"}}));
    QVERIFY(lessonStepPatch(base, base).isEmpty());
}

void TestLesson::roundTripThroughJson()
{
    const Lesson *l = builtInLesson("pipeline-bubble");
    QVERIFY(l);
    QString error;
    const auto back = lessonFromJson(QJsonDocument(lessonToJson(*l)).toJson(), l->fileName, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->title, l->title);
    QCOMPARE(back->sources, l->sources);
    QCOMPARE(back->start, l->start);
    QCOMPARE(back->steps.size(), l->steps.size());
    for (std::size_t i = 0; i < l->steps.size(); ++i) {
        QCOMPARE(back->steps[i].title, l->steps[i].title);
        QCOMPARE(back->steps[i].text, l->steps[i].text);
        QCOMPARE(back->steps[i].patch, l->steps[i].patch);
        QCOMPARE(back->steps[i].expect, l->steps[i].expect);
        QCOMPARE(back->steps[i].view.has_value(), l->steps[i].view.has_value());
    }
}

void TestLesson::toldByContent()
{
    QVERIFY(isLessonJson(lessonJson({QJsonObject{{"title", "t"}, {"text", "A."}}})));
    QVERIFY(!isLessonJson(R"({"schema": "shardscope-scenario", "version": 1})"));
    QVERIFY(!isLessonJson(R"({"model_type": "llama"})"));
    QVERIFY(!isLessonJson("not json"));
}

QTEST_GUILESS_MAIN(TestLesson)
#include "test_lesson.moc"
