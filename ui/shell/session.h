#pragma once

#include "catalog.h"
#include "compare.h"
#include "estimate.h"
#include "format.h"
#include "lesson.h"
#include "measurement.h"
#include "planner.h"
#include "schedule.h"
#include "steptime.h"
#include "sweep.h"
#include "verdict.h"

#include <QObject>
#include <array>
#include <cstdint>
#include <optional>

namespace shardscope {

/// The window's one source of truth: the Scenario being explored, the display unit, and
/// everything the engine derives from them: the MemoryReport, its Verdict, the strategy
/// comparison and the pipeline schedule.
///
/// Every edit goes through a setter or edit() and ends in exactly one changed() signal.
/// Derived values are computed lazily, on first use after a change, and cached until the
/// next change: a slider drag pays for the report and verdict the memory view draws, not
/// for the four comparison estimates or the schedule of a tab nobody is looking at
/// (LazyRefresh decides when a hidden view asks). Views only draw what they read here.
class PlanJob;

class Session : public QObject
{
    Q_OBJECT
public:
    /// Starts on Llama 3 70B, 64 x H100 SXM 80GB, DDP, mixed-precision Adam.
    explicit Session(const Catalog &catalog, QObject *parent = nullptr);

    const Catalog &catalog() const { return m_catalog; }
    const Scenario &scenario() const { return m_scenario; }
    ByteUnit unit() const { return m_unit; }
    /// True when the model comes from the size slider (scaled shape), not a preset.
    bool modelIsScaled() const { return m_scaled; }
    /// Counts changes: one more after every changed() signal. A view that caches what it
    /// drew compares revisions instead of scenarios.
    std::uint64_t revision() const { return m_revision; }

    /// estimate(preparedModel(), scenario()), the same report as estimate(scenario()),
    /// computed on first use after a change (about a microsecond).
    const MemoryReport &report() const;
    /// prepare(scenario().model) (core/estimate.h), kept between estimates while the model
    /// stays: the GPU count and the strategy change the scenario, not the model, so their
    /// re-estimates skip the model's work and reuse the engine's activation figures (kept
    /// under PreparedModel::serial). Prepared again after setModelPreset(),
    /// setScaledModel(), setScenario() or edit() (which may change anything).
    const PreparedModel &preparedModel() const;
    /// verdict(scenario(), report()): what overflows, by how much, and why (core/verdict.h).
    const Verdict &verdict() const;
    /// compareStrategies(scenario()): the scenario under DDP, ZeRO-1, ZeRO-2 and ZeRO-3,
    /// four estimates, computed on first use after a change.
    const std::array<StrategyVariant, 4> &comparison() const;
    /// sweepStrategies(scenario(), sweepAxis()) (core/sweep.h): each strategy's peak memory
    /// per GPU along the GPU count, sequence length or micro-batch size, for the Sweep tab
    /// and `export --chart sweep`. About 60 estimates, computed on first use after a change
    /// (so only while a view shows it) and cached until the scenario or the axis changes.
    const StrategySweep &sweep() const;
    /// What sweep() varies: the GPU count unless setSweepAxis() said otherwise.
    SweepAxis sweepAxis() const { return m_sweepAxis; }
    /// Makes sweep() vary `axis` (a view setting, like the unit: the scenario stays). One
    /// changed() signal when it changes.
    void setSweepAxis(SweepAxis axis);
    /// whatFits(scenario()): the fewest GPUs at which each strategy fits this model and
    /// card, and the fastest fitting layout at the current GPU count (core/planner.h;
    /// tens of microseconds, so the line under the verdict follows a drag).
    const WhatFits &whatFits() const;
    /// A pasted out-of-memory message explained against this scenario and report
    /// (parseOomMessage(), explainOom() with three suggestions, oomExplanationText():
    /// core/oomexplain.h), as the text `shardscope explain-oom` prints. With `*ok` false
    /// it is the one-line reason no message was read. Not cached: it runs the planner,
    /// tenths of a second, once per request.
    QString explainOomMessage(const QString &pasted, bool *ok = nullptr) const;
    /// stepTime(scenario(), report()): step time, MFU, tokens per second and the time,
    /// GPU-hours and cost to train the token budget (core/steptime.h), on first use.
    const StepTime &stepTime() const;
    /// scheduleParams(scenario()): the pipeline schedule the scenario runs.
    ScheduleParams scheduleParameters() const { return scheduleParams(m_scenario); }
    /// schedule(scheduleParameters()): the simulated pipeline timeline. Simulated on
    /// first use, and again only when the schedule's parameters change (a model-size or
    /// GPU drag keeps the timeline); at p 16, m 64 it takes about a millisecond.
    const Timeline &timeline() const;
    /// The last interleaved v (>= 2) this session ran, 2 until it ran one: what switching
    /// the schedule back to interleaved 1F1B restores (chunksForSchedule(), core/defaults.h).
    int lastInterleavedChunks() const { return m_lastInterleavedChunks; }
    /// The window's one plan job (the Plan tab's searches on a worker thread); the Session
    /// owns it, so closing the window cancels a running plan.
    PlanJob &planJob() const { return *m_planJob; }

    /// Selects a model preset by id; unknown ids are ignored.
    void setModelPreset(const std::string &id);
    /// Uses scaledArchitecture(parameters): a Llama-style shape near that count.
    void setScaledModel(std::int64_t parameters);
    void setGpus(std::int64_t gpus);
    void setZeroStage(ZeroStage stage);
    /// Selects a GPU from the catalog by id; unknown ids are ignored.
    void setGpu(const std::string &id);
    /// Selects a recipe preset by id; unknown ids are ignored.
    void setRecipe(const std::string &id);
    /// Replaces the bytes per parameter (the recipe becomes "custom" unless they match a preset).
    void setRecipeBytes(std::int64_t weights, std::int64_t gradients, std::int64_t master,
                        std::int64_t optimizer);
    void setUnit(ByteUnit unit);
    /// Counts model states only (the ZeRO paper's Figure 1 accounting) or everything.
    void setModelStatesOnly(bool on);
    /// Applies `change(Scenario &)` and signals once: the one way to edit any other
    /// setting (layout degrees, training, overheads) without a setter each.
    template <typename F> void edit(F &&change)
    {
        change(m_scenario);
        m_prepared.reset(); // the change may have been the model's
        invalidate();
    }
    /// Replaces everything at once (one changed() signal).
    void setScenario(const Scenario &s, bool scaled = false);

    /// A measured run to draw beside the prediction (File > Open measurement; io/measurement.h),
    /// named `name` (the file's name), or none. One changed() signal.
    void setMeasurement(std::optional<Measurement> m, const QString &name = {});
    /// The measured run, if one is open.
    const std::optional<Measurement> &measurement() const { return m_measurement; }
    /// The open measurement's file name ("" without one).
    const QString &measurementName() const { return m_measurementName; }
    /// compareMeasurement(measurement(), report())'s first figure: the measured per-GPU
    /// peak and the prediction it meets; nullopt without a measurement, a valid report or a
    /// figure (computed on each call: a handful of additions).
    std::optional<MeasuredComparison> measuredPeak() const;
    /// The open measurement's trace (Measurement::trace: seconds, bytes; empty without
    /// one) and the name the stage chart gives it: "Measured allocated, GPU 0", "used" for
    /// an nvidia-smi log.
    const std::vector<MeasuredPoint> &measuredTrace() const;
    QString measuredTraceLabel() const;
    /// The running lesson and its step (0-based), or none (`lesson` null): what the
    /// memory chart's fixed scale and ghost are derived from. No signal of its own: the
    /// LessonPlayer sets it just before the step's setScenario(), whose changed() redraws.
    void setLessonStep(const Lesson *lesson, int step);
    /// True while a lesson is set (setLessonStep()).
    bool lessonRunning() const { return m_lesson.has_value(); }
    /// The running lesson's scale in bytes: the largest per-GPU peak or card capacity over
    /// all its steps' scenarios (lessonDocument(), estimate()), so that one y axis holds
    /// every step. Computed once per lesson; 0 with none.
    std::int64_t lessonScaleBytes() const;
    /// estimate() of the previous step's scenario (lessonDocument(lesson, step - 1)), what
    /// the memory chart draws as a ghost; null at the first step or with no lesson.
    const MemoryReport *previousStepReport() const;

signals:
    /// The scenario or unit changed; every derived value reads the new state.
    void changed();

private:
    void invalidate();

    const Catalog &m_catalog;
    Scenario m_scenario;
    ByteUnit m_unit = ByteUnit::GB;
    bool m_scaled = false;
    std::uint64_t m_revision = 0;
    // Caches of the derived values, filled on first use after a change.
    mutable std::optional<PreparedModel> m_prepared; ///< reset only when the model may change
    mutable std::optional<MemoryReport> m_report;
    mutable std::optional<Verdict> m_verdict;
    mutable std::optional<WhatFits> m_whatFits;
    mutable std::optional<StepTime> m_stepTime;
    mutable std::optional<std::array<StrategyVariant, 4>> m_comparison;
    mutable std::optional<StrategySweep> m_sweep; ///< sweep(), for m_sweepAxis
    SweepAxis m_sweepAxis = SweepAxis::Gpus;
    mutable std::optional<Timeline> m_timeline;
    mutable ScheduleParams m_timelineParams;  ///< what m_timeline was simulated for
    int m_lastInterleavedChunks = 2;          ///< lastInterleavedChunks()
    std::optional<Measurement> m_measurement; ///< measurement()
    QString m_measurementName;                ///< measurementName()
    PlanJob *m_planJob = nullptr;             ///< a child QObject
    std::optional<Lesson> m_lesson;           ///< setLessonStep()'s lesson, a copy
    int m_lessonStep = 0;
    mutable std::optional<std::int64_t> m_lessonScale;        ///< lessonScaleBytes()
    mutable std::optional<MemoryReport> m_previousStepReport; ///< previousStepReport()
};

} // namespace shardscope
