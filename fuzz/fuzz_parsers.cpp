// libFuzzer targets for every parser of outside input (launch configs, measurement
// files and their pickle reader included), for what `export-config` and `plan` make
// of an accepted scenario file, for `export`'s argument handling, and for pasted text
// read for PyTorch's out-of-memory message (`explain-oom`; scripts/fuzz.sh runs them).
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
#include "exportrequest.h"

#include <QTextStream>
#include <variant>
#endif
#if SHARDSCOPE_FUZZ_TARGET == 14
#include "launchconfigread.h"
#endif
#if SHARDSCOPE_FUZZ_TARGET == 9
#include "planner.h"

#include <algorithm>
#endif
#if SHARDSCOPE_FUZZ_TARGET == 11
#include "explainoomcommand.h"
#include "oomexplain.h"
#include "oommessage.h"
#endif
#if SHARDSCOPE_FUZZ_TARGET == 12
#include "defaults.h"
#include "measurement.h"
#endif
#if SHARDSCOPE_FUZZ_TARGET == 13
#include "pickle.h"
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
    const ProbeError whole = parsePrometheusVector(bytes, &series);
    // The client feeds the answer as it arrives: cut in three anywhere, it must read alike.
    if (!bytes.isEmpty()) {
        const qsizetype cut1 = qsizetype(data[0]) * bytes.size() / 256;
        const qsizetype cut2 = cut1 + (bytes.size() - cut1) / 2;
        PrometheusVectorParser parser;
        parser.feed(QByteArrayView(bytes).first(cut1));
        parser.feed(QByteArrayView(bytes).sliced(cut1, cut2 - cut1));
        parser.feed(QByteArrayView(bytes).sliced(cut2));
        const ProbeError pieces = parser.finish();
        const std::vector<PrometheusSeries> read = parser.takeSeries();
        if (pieces.code != whole.code || pieces.message != whole.message ||
            read.size() != series.size())
            __builtin_trap();
        for (std::size_t i = 0; i < read.size(); ++i)
            if (read[i].labels != series[i].labels || read[i].value != series[i].value)
                __builtin_trap();
    }
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
#elif SHARDSCOPE_FUZZ_TARGET == 10 // export: NUL-separated arguments, checked, not drawn
    QStringList args{QStringLiteral("shardscope"), QStringLiteral("export")};
    for (const QByteArray &a : bytes.split('\0'))
        args << QString::fromUtf8(a);
    if (args.size() > 66)
        return 0;
    // Stand-ins for the chart layer (ui/charts/chartregistry.h), which needs Widgets.
    const ExportChoices choices = standInExportChoices();
    QString printed, errors;
    QTextStream out(&printed), err(&errors);
    const auto parsed = parseExportArguments(args, choices, out, err);
    if (const auto *request = std::get_if<ExportRequest>(&parsed)) {
        if (request->size.width() < choices.minWidth ||
            request->size.height() < choices.minHeight || request->size.width() > choices.maxSide ||
            request->size.height() > choices.maxSide || !choices.isChart(request->chart) ||
            !choices.isFormat(request->file))
            __builtin_trap();
        exercise(request->doc.scenario);
    } else if (std::get<int>(parsed) == 2 && errors.count(QLatin1Char('\n')) != 1) {
        __builtin_trap(); // a refusal is one line
    }
#elif SHARDSCOPE_FUZZ_TARGET == 11 // explain-oom: text that may hold an OOM message
    const OomParse parse = parseOomMessage(std::string_view(bytes.constData(), size));
    if (parse.valid() == !parse.error.empty())
        __builtin_trap(); // a message or an error, never both or neither
    if (parse.valid()) {
        const OomMessage &m = *parse.message;
        for (const auto *f :
             {&m.triedToAllocateBytes, &m.totalCapacityBytes, &m.freeBytes, &m.inUseBytes,
              &m.allocatedByPytorchBytes, &m.reservedUnallocatedBytes, &m.reservedBytes,
              &m.allowedBytes, &m.privatePoolBytes})
            if (*f && (**f < 0 || **f > 2 * maxOomSizeBytes))
                __builtin_trap(); // sizes are bytes between 0 and 1 PiB (sums: twice that)
        // The explanation and its JSON on the default scenario, without the planner.
        const Scenario s = defaultScenario();
        const OomExplanation e = explainOom(m, s, estimate(s), ByteUnit::GiB, false);
        (void)oomExplanationJson(m, e);
    }
#elif SHARDSCOPE_FUZZ_TARGET == 12 // measured memory: snapshot pickle, timeline JSON, nvidia-smi
    static const MemoryReport report = estimate(defaultScenario());
    if (auto m = readMeasurement(bytes, &error)) {
        const MeasurementGap gap = compareMeasurement(*m, report);
        if (m->reservedBytes && *m->reservedBytes < 0)
            __builtin_trap();
        (void)gap;
    }
#elif SHARDSCOPE_FUZZ_TARGET == 13 // the pickle reader alone: every child index in range
    if (auto doc =
            readPickle(std::string_view(bytes.constData(), std::size_t(bytes.size())), &error)) {
        if (doc->root >= doc->nodes.size())
            __builtin_trap();
        for (const PickleNode &n : doc->nodes)
            for (const std::uint32_t kid : n.kids)
                if (kid >= doc->nodes.size() || n.depth > PickleLimits{}.maxDepth)
                    __builtin_trap();
    } else if (error.isEmpty() || error.contains(QLatin1Char('\n'))) {
        __builtin_trap(); // every refusal is one line
    }
#elif SHARDSCOPE_FUZZ_TARGET == 14 // --launch-config: any of the four formats, by content
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
#error "SHARDSCOPE_FUZZ_TARGET must be 1 to 14"
#endif
    return 0;
}
