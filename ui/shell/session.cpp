#include "session.h"

#include "defaults.h"
#include "oomexplain.h"
#include "planjob.h"
#include "qtext.h"

#include <algorithm>

namespace shardscope {

Session::Session(const Catalog &catalog, QObject *parent)
    : QObject(parent), m_catalog(catalog), m_planJob(new PlanJob(this))
{
    // The catalog's defaults, or its first entries when it lacks them (a test catalog).
    const Model *m = catalog.model(defaultModelId);
    const Recipe *r = catalog.recipe(defaultRecipeId);
    const Gpu *g = catalog.gpu(defaultGpuId);
    m_scenario =
        defaultScenario(m ? *m : catalog.models().front(), r ? *r : catalog.recipes().front(),
                        g ? *g : catalog.gpus().front());
}

const PreparedModel &Session::preparedModel() const
{
    if (!m_prepared)
        m_prepared = prepare(m_scenario.model);
    return *m_prepared;
}

const MemoryReport &Session::report() const
{
    if (!m_report)
        m_report = estimate(preparedModel(), m_scenario);
    return *m_report;
}

const Verdict &Session::verdict() const
{
    if (!m_verdict)
        m_verdict = shardscope::verdict(m_scenario, report());
    return *m_verdict;
}

const StepTime &Session::stepTime() const
{
    if (!m_stepTime)
        m_stepTime = shardscope::stepTime(m_scenario, report());
    return *m_stepTime;
}

const WhatFits &Session::whatFits() const
{
    if (!m_whatFits)
        m_whatFits = shardscope::whatFits(m_scenario);
    return *m_whatFits;
}

QString Session::explainOomMessage(const QString &pasted, bool *ok) const
{
    const QByteArray text = pasted.toUtf8();
    const OomParse parse = parseOomMessage(std::string_view(text.constData(), text.size()));
    if (ok)
        *ok = parse.valid() && report().valid();
    if (!parse.valid())
        return toQString(parse.error);
    if (!report().valid())
        return QStringLiteral("Cannot estimate: ") + toQString(report().error);
    const OomExplanation e = explainOom(*parse.message, m_scenario, report(), m_unit);
    return toQString(oomExplanationText(*parse.message, e, m_scenario, m_unit));
}

const std::array<StrategyVariant, 4> &Session::comparison() const
{
    if (!m_comparison)
        m_comparison = compareStrategies(m_scenario);
    return *m_comparison;
}

const StrategySweep &Session::sweep() const
{
    if (!m_sweep)
        m_sweep = sweepStrategies(m_scenario, m_sweepAxis);
    return *m_sweep;
}

void Session::setSweepAxis(SweepAxis axis)
{
    if (axis == m_sweepAxis)
        return;
    m_sweepAxis = axis;
    m_sweep.reset();
    ++m_revision;
    emit changed();
}

const Timeline &Session::timeline() const
{
    const ScheduleParams params = scheduleParameters();
    if (!m_timeline || !(params == m_timelineParams)) {
        m_timeline = schedule(params);
        m_timelineParams = params;
    }
    return *m_timeline;
}

void Session::setMeasurement(std::optional<Measurement> m, const QString &name)
{
    m_measurement = std::move(m);
    m_measurementName = m_measurement ? name : QString();
    ++m_revision;
    emit changed();
}

std::optional<MeasuredComparison> Session::measuredPeak() const
{
    if (!m_measurement || !report().valid())
        return std::nullopt;
    const MeasurementGap gap = compareMeasurement(*m_measurement, report());
    if (gap.comparisons.empty())
        return std::nullopt;
    return gap.comparisons.front();
}

const std::vector<MeasuredPoint> &Session::measuredTrace() const
{
    static const std::vector<MeasuredPoint> none;
    return m_measurement ? m_measurement->trace : none;
}

QString Session::measuredTraceLabel() const
{
    if (!m_measurement || m_measurement->trace.empty())
        return {};
    const bool used = m_measurement->source == MeasurementSource::NvidiaSmiCsv;
    return QStringLiteral("Measured %1, GPU %2")
        .arg(used ? QStringLiteral("used") : QStringLiteral("allocated"))
        .arg(m_measurement->traceGpu);
}

void Session::invalidate()
{
    // The timeline stays: timeline() resimulates only when its parameters changed.
    m_report.reset();
    m_verdict.reset();
    m_whatFits.reset();
    m_stepTime.reset();
    m_comparison.reset();
    m_sweep.reset();
    const Training &t = m_scenario.training;
    if (t.schedule == PipelineSchedule::Interleaved1F1B && t.chunks >= 2)
        m_lastInterleavedChunks = t.chunks;
    ++m_revision;
    emit changed();
}

void Session::setModelPreset(const std::string &id)
{
    if (const Model *m = m_catalog.model(id)) {
        m_scenario.model = *m;
        m_scaled = false;
        m_prepared.reset();
        invalidate();
    }
}

void Session::setScaledModel(std::int64_t parameters)
{
    Model m;
    m.architecture = scaledArchitecture(parameters);
    m.id = "scaled";
    m.displayName = "Scaled Llama-style " + formatParameters(m.parameters());
    m.source = "shape scaled from the size slider (core/model.h scaledArchitecture), not a "
               "published model";
    m_scenario.model = m;
    m_scaled = true;
    m_prepared.reset();
    invalidate();
}

void Session::setGpus(std::int64_t gpus)
{
    if (gpus == m_scenario.layout.gpus)
        return;
    m_scenario.layout.gpus = gpus;
    invalidate();
}

void Session::setZeroStage(ZeroStage stage)
{
    if (stage == m_scenario.layout.zeroStage)
        return;
    m_scenario.layout.zeroStage = stage;
    invalidate();
}

void Session::setGpu(const std::string &id)
{
    if (const Gpu *g = m_catalog.gpu(id)) {
        m_scenario.gpu = *g;
        invalidate();
    }
}

void Session::setRecipe(const std::string &id)
{
    if (const Recipe *r = m_catalog.recipe(id)) {
        m_scenario.recipe = *r;
        invalidate();
    }
}

void Session::setRecipeBytes(std::int64_t weights, std::int64_t gradients, std::int64_t master,
                             std::int64_t optimizer)
{
    Recipe r;
    r.id = "custom";
    r.displayName = "Custom";
    r.source = "edited by hand";
    r.weightBytes = weights;
    r.gradientBytes = gradients;
    r.masterWeightBytes = master;
    r.optimizerBytes = optimizer;
    for (const Recipe &preset : m_catalog.recipes()) {
        if (preset.weightBytes == weights && preset.gradientBytes == gradients &&
            preset.masterWeightBytes == master && preset.optimizerBytes == optimizer) {
            r = preset;
            break;
        }
    }
    m_scenario.recipe = r;
    invalidate();
}

void Session::setUnit(ByteUnit unit)
{
    if (unit == m_unit)
        return;
    m_unit = unit;
    ++m_revision; // nothing derived depends on the unit
    emit changed();
}

void Session::setModelStatesOnly(bool on)
{
    if (on == m_scenario.modelStatesOnly)
        return;
    m_scenario.modelStatesOnly = on;
    invalidate();
}

void Session::setScenario(const Scenario &s, bool scaled)
{
    m_scenario = s;
    m_scaled = scaled;
    m_prepared.reset();
    invalidate();
}

void Session::setLessonStep(const Lesson *lesson, int step)
{
    const bool sameLesson = lesson && m_lesson && m_lesson->fileName == lesson->fileName &&
                            m_lesson->id == lesson->id &&
                            m_lesson->steps.size() == lesson->steps.size();
    if (!sameLesson) {
        m_lessonScale.reset();
        m_lesson = lesson ? std::optional<Lesson>(*lesson) : std::nullopt;
    }
    if (!sameLesson || step != m_lessonStep)
        m_previousStepReport.reset();
    m_lessonStep = step;
}

std::int64_t Session::lessonScaleBytes() const
{
    if (!m_lesson)
        return 0;
    if (!m_lessonScale) {
        std::int64_t top = 0;
        for (int i = 0; i < int(m_lesson->steps.size()); ++i) {
            const MemoryReport r = estimate(lessonDocument(*m_lesson, i).scenario);
            if (r.valid())
                top = std::max({top, r.peakBytes(), r.capacityBytes});
        }
        m_lessonScale = top;
    }
    return *m_lessonScale;
}

const MemoryReport *Session::previousStepReport() const
{
    if (!m_lesson || m_lessonStep < 1)
        return nullptr;
    if (!m_previousStepReport)
        m_previousStepReport = estimate(lessonDocument(*m_lesson, m_lessonStep - 1).scenario);
    return &*m_previousStepReport;
}

} // namespace shardscope
