// libFuzzer targets for every parser of outside input, and for what `export-config` and
// `plan` make of an accepted scenario file (scripts/fuzz.sh runs them), and the launch
// configs `--launch-config` reads.
// One source, one target per SHARDSCOPE_FUZZ_TARGET value, so each keeps its own
// corpus and coverage. Every accepted input is also fed to the engine, so what a
// parser lets through is checked by estimate() and the formatters too.
#include "estimate.h"
#include "format.h"
#include "hfconfig.h"
#include "lesson.h"
#include "probedocument.h"
#include "reportjson.h"
#include "scenariofile.h"

#if SHARDSCOPE_FUZZ_TARGET == 5 || SHARDSCOPE_FUZZ_TARGET == 6
#include "calibration.h"
#include "prometheus.h"
#endif
#if SHARDSCOPE_FUZZ_TARGET == 7
#include "reportcommand.h"

#include <QCommandLineParser>
#endif

#if SHARDSCOPE_FUZZ_TARGET == 8
#include "launchconfig.h"
#endif
#if SHARDSCOPE_FUZZ_TARGET == 10
#include "launchconfigread.h"
#endif
#if SHARDSCOPE_FUZZ_TARGET == 9
#include "planner.h"

#include <algorithm>
#endif

#include <QByteArray>
#include <cstddef>
#include <cstdint>

using namespace shardscope;
#if SHARDSCOPE_FUZZ_TARGET == 5 || SHARDSCOPE_FUZZ_TARGET == 6
using namespace shardscope::probe;
#endif

namespace {

/// The engine and the report writers on an accepted scenario: must not crash, and
/// must not leave a valid report with a negative size.
[[maybe_unused]] void exercise(const Scenario &s)
{
    const MemoryReport r = estimate(s);
    if (!r.valid())
        return;
    (void)reportToJson(s, r);
    (void)verdictText(s, r, ByteUnit::GiB);
    for (const GpuGroup &g : r.groups)
        if (g.totalBytes() < 0)
            __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    QString error;
#if SHARDSCOPE_FUZZ_TARGET == 1 // Hugging Face config.json
    if (auto m = modelFromHfConfig(bytes, &error)) {
        Scenario s = defaultScenario();
        s.model = *m;
        exercise(s);
    }
#elif SHARDSCOPE_FUZZ_TARGET == 2  // scenario file
    if (auto doc = scenarioFromBytes(bytes, QStringLiteral("fuzz.json"), &error))
        exercise(doc->scenario);
#elif SHARDSCOPE_FUZZ_TARGET == 3  // lesson file
    if (auto lesson = lessonFromJson(bytes, QStringLiteral("fuzz.json"), &error))
        for (int i = 0; i < int(lesson->steps.size()) && i < 16; ++i)
            exercise(lessonDocument(*lesson, i).scenario);
#elif SHARDSCOPE_FUZZ_TARGET == 4  // one line of the probe's reading document
    (void)parseProbeLine(bytes);
#elif SHARDSCOPE_FUZZ_TARGET == 5  // Prometheus HTTP API answer
    std::vector<PrometheusSeries> series;
    (void)parsePrometheusVector(bytes, &series);
#elif SHARDSCOPE_FUZZ_TARGET == 6  // calibration plan (a report JSON)
    CalibrationPlan plan;
    (void)parseCalibrationScenario(bytes, 0, &plan);
#elif SHARDSCOPE_FUZZ_TARGET == 7  // the command line: NUL-separated arguments
    QStringList args{QStringLiteral("shardscope")};
    for (const QByteArray &a : bytes.split('\0'))
        args << QString::fromUtf8(a);
    if (args.size() > 64)
        return 0;
    QCommandLineParser p;
    const ScenarioOptions options;
    options.addTo(p);
    if (p.parse(args))
        if (auto doc = options.document(p, &error))
            exercise(doc->scenario);
#elif SHARDSCOPE_FUZZ_TARGET == 8  // export-config: a scenario file's launch configs
    if (auto doc = scenarioFromBytes(bytes, QStringLiteral("fuzz.json"), &error))
        for (LaunchFormat f : {LaunchFormat::DeepSpeed, LaunchFormat::Accelerate,
                               LaunchFormat::Torchtitan, LaunchFormat::Megatron})
            (void)exportLaunchConfig(doc->scenario, f, &error);
#elif SHARDSCOPE_FUZZ_TARGET == 9  // plan: a scenario file's layouts, a bounded search
    if (auto doc = scenarioFromBytes(bytes, QStringLiteral("fuzz.json"), &error)) {
        PlanRequest q;
        q.base = doc->scenario;
        q.minGpus = std::clamp<std::int64_t>(doc->scenario.layout.gpus, 1, 64);
        q.maxGpus = q.minGpus;
        q.keep = 10;
        q.maxCandidates = 20'000; // a refusal past it is an answer too
        const PlanResult r = plan(q);
        for (const PlanCandidate &c : r.fitting)
            if (c.peakBytes < 0 || !(c.time.stepSeconds >= 0))
                __builtin_trap();
    }
#elif SHARDSCOPE_FUZZ_TARGET == 10 // --launch-config: any of the four formats, by content
    // The name has no extension, so the content picks the reader (detectLaunchFormat()).
    (void)shellWords(QString::fromUtf8(bytes), &error);
    if (auto read = readLaunchConfig(bytes, QStringLiteral("fuzz"), &error)) {
        ScenarioDocument doc{defaultScenario(), ByteUnit::GB};
        QStringList notes;
        if (applyLaunchConfig(*read, QStringLiteral("fuzz"), {}, &doc, &notes, &error) &&
            validate(doc.scenario).empty())
            exercise(doc.scenario);
    }
#else
#error "SHARDSCOPE_FUZZ_TARGET must be 1 to 10"
#endif
    return 0;
}
