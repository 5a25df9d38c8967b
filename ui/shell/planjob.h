#pragma once

#include "planner.h"

#include <QByteArray>
#include <QObject>
#include <atomic>
#include <cstdint>
#include <memory>

class QThread;

namespace shardscope {

/// One plan (core/planner.h plan()) at a time on a worker thread, for the window: the
/// Session owns one and the Plan tab drives it. plan() is a pure function of the copied
/// request, so the window never blocks on a search of seconds.
///
/// start() runs a request under a key (the caller's fingerprint of its inputs); while it
/// runs, progressed() reports at most every progressMilliseconds; finished() hands back
/// the key, the result (PlanResult::cancelled when cancel() stopped it) and the wall time.
/// cancel() sets PlanRequest::cancel, which the planner checks before every layout, so a
/// cancelled or destroyed job ends at once (the destructor cancels, then joins).
class PlanJob : public QObject
{
    Q_OBJECT
public:
    /// Least milliseconds between two progressed() signals.
    static constexpr int progressMilliseconds = 100;

    explicit PlanJob(QObject *parent = nullptr);
    /// Cancels a running plan and waits for its thread.
    ~PlanJob() override;

    /// Plans `request` under `key` on a new worker thread. False (nothing started) while a
    /// plan still runs: cancel() it and start again on finished().
    bool start(PlanRequest request, const QByteArray &key);
    /// Stops the running plan at its next layout; finished() follows with the result so
    /// far, marked cancelled. Nothing when none runs.
    void cancel();
    /// Cancels a running plan, waits for it and drops its result: no finished() follows.
    void discard();
    /// True from start() until finished() (or discard()).
    bool isRunning() const { return m_worker != nullptr; }
    /// The key of the running plan; empty when none runs.
    QByteArray runningKey() const { return m_key; }

signals:
    /// The running plan has evaluated `done` of its `total` candidates.
    void progressed(qint64 done, qint64 total);
    /// The plan of `key` ended: `result` after `milliseconds` of wall time.
    void finished(const QByteArray &key, const shardscope::PlanResult &result, double milliseconds);

private:
    /// What a worker hands back.
    struct Outcome
    {
        PlanResult result;
        double milliseconds = 0;
    };
    void workerEnded(int id, const std::shared_ptr<Outcome> &outcome);

    QThread *m_worker = nullptr;
    std::shared_ptr<std::atomic<bool>> m_cancel; ///< the running request's cancel flag
    QByteArray m_key;
    int m_id = 0; ///< counts workers: a queued call of a discarded one is stale
};

} // namespace shardscope
