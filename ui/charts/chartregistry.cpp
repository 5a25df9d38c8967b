#include "chartregistry.h"

#include "comparechart.h"
#include "format.h"
#include "memorychart.h"
#include "qtext.h"
#include "session.h"
#include "stagememorychart.h"
#include "steptimebar.h"
#include "sweepchart.h"
#include "timelinepanel.h"

#include <QCoreApplication>
#include <iterator>

namespace shardscope {

namespace {

QString pipelineTitle(const Session &session)
{
    const Scenario &s = session.scenario();
    // "1 stage", "1 micro-batch": a one-stage run is exported too.
    return QStringLiteral("%1 pipeline, %2 stage%3, %4 micro-batch%5")
        .arg(toQString(pipelineScheduleName(s.training.schedule)))
        .arg(s.layout.pipelineParallel)
        .arg(s.layout.pipelineParallel == 1 ? QString() : QStringLiteral("s"))
        .arg(s.training.microBatches)
        .arg(s.training.microBatches == 1 ? QString() : QStringLiteral("es"));
}

std::vector<ChartEntry> makeRegistry()
{
    std::vector<ChartEntry> charts;
    charts.push_back(
        {QStringLiteral("memory"), QStringLiteral("Memory per GPU"),
         [](Session *, QWidget *parent) -> ChartView * { return new MemoryChart(parent); },
         [](ChartView &chart, const Session &session) {
             auto &memory = static_cast<MemoryChart &>(chart);
             const auto peak = session.measuredPeak();
             memory.setMeasured(
                 peak ? std::optional<std::int64_t>(peak->measuredBytes) : std::nullopt,
                 // Short enough for the plot at 1280x720 (with the file's name it was cut).
                 peak ? QStringLiteral("measured %1 %2")
                            .arg(toQString(peak->measure).replace(u'_', u' '),
                                 toQString(formatBytes(peak->measuredBytes, session.unit())))
                      : QString());
             memory.setReport(session.scenario(), session.report(), session.unit());
         },
         [](const Session &session) {
             return toQString(verdictText(session.scenario(), session.report(), session.unit()));
         }});
    charts.push_back(
        {QStringLiteral("compare"), QStringLiteral("Compare strategies"),
         [](Session *, QWidget *parent) -> ChartView * { return new CompareChart(parent); },
         [](ChartView &chart, const Session &session) {
             static_cast<CompareChart &>(chart).setComparison(session.scenario(),
                                                              session.comparison(), session.unit());
         },
         [](const Session &session) {
             const Scenario &s = session.scenario();
             return QStringLiteral("DDP, ZeRO-1, ZeRO-2 and ZeRO-3 on %1 × %2")
                 .arg(s.layout.gpus)
                 .arg(toQString(s.gpu.shortName));
         }});
    charts.push_back({QStringLiteral("timeline"),
                      QStringLiteral("Pipeline timeline"),
                      [](Session *session, QWidget *parent) -> ChartView * {
                          return new TimelinePanel(session, parent);
                      },
                      {}, // the panel follows the Session itself
                      pipelineTitle});
    charts.push_back(
        {QStringLiteral("stages"), QStringLiteral("Memory per stage over the step"),
         [](Session *, QWidget *parent) -> ChartView * { return new StageMemoryChart(parent); },
         [](ChartView &chart, const Session &session) {
             auto &stages = static_cast<StageMemoryChart &>(chart);
             stages.setSecondsPerUnit(secondsPerTimelineUnit(
                 session.stepTime(), session.scheduleParameters().microBatches));
             stages.setData(session.scenario(), session.report(), session.timeline(),
                            session.unit());
             stages.setMeasuredTrace(session.measuredTrace(), session.measuredTraceLabel());
             stages.setPlayhead(session.timeline().makespan); // the whole step, as the timeline
         },
         pipelineTitle});
    charts.push_back(
        {QStringLiteral("steptime"), QStringLiteral("Step time"),
         [](Session *, QWidget *parent) -> ChartView * { return new StepTimeBar(parent); },
         [](ChartView &chart, const Session &session) {
             static_cast<StepTimeBar &>(chart).setStepTime(session.stepTime());
         },
         [](const Session &session) {
             const StepTime &t = session.stepTime();
             const Scenario &s = session.scenario();
             return t.valid() ? toQString(stepTimeText(t, s.layout.gpus, s.throughput.tokenBudget))
                              : QStringLiteral("Step time");
         }});
    charts.push_back(
        {QStringLiteral("sweep"), QStringLiteral("Sweep"),
         [](Session *, QWidget *parent) -> ChartView * { return new SweepChart(parent); },
         [](ChartView &chart, const Session &session) {
             static_cast<SweepChart &>(chart).setSweep(session.scenario(), session.sweep(),
                                                       session.report(), session.unit());
         },
         [](const Session &session) {
             const Scenario &s = session.scenario();
             static const QString against[] = {
                 QStringLiteral("memory per GPU against the number of GPUs"),
                 QStringLiteral("memory per GPU against sequence length"),
                 QStringLiteral("memory per GPU against micro-batch size"),
                 QStringLiteral("step time against the number of GPUs, global batch fixed")};
             return QStringLiteral("%1 on %2: %3")
                 .arg(toQString(s.model.displayName.empty() ? std::string("The model")
                                                            : s.model.displayName),
                      toQString(s.gpu.shortName),
                      against[std::size_t(session.sweepAxis()) % std::size(against)]);
         }});
    return charts;
}

} // namespace

const std::vector<ChartEntry> &chartRegistry()
{
    static const std::vector<ChartEntry> charts = makeRegistry();
    return charts;
}

const ChartEntry *findChart(const QString &id)
{
    for (const ChartEntry &entry : chartRegistry())
        if (entry.id.compare(id, Qt::CaseInsensitive) == 0)
            return &entry;
    return nullptr;
}

QStringList chartIds()
{
    QStringList ids;
    for (const ChartEntry &entry : chartRegistry())
        ids << entry.id;
    return ids;
}

QString chartIdList()
{
    QStringList ids = chartIds();
    const QString last = ids.takeLast();
    return ids.isEmpty() ? last : ids.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

std::unique_ptr<ChartView> makeOffscreenChart(const ChartEntry &entry, Session *session,
                                              QSize logicalSize)
{
    std::unique_ptr<ChartView> chart(entry.make(session, nullptr));
    chart->resize(logicalSize);
    if (entry.draw)
        entry.draw(*chart, *session);
    chart->setAttribute(Qt::WA_DontShowOnScreen); // laid out and polished, never on a screen
    chart->show();
    QCoreApplication::processEvents();
    return chart;
}

} // namespace shardscope
