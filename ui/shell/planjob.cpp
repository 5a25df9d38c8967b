#include "planjob.h"

#include <QElapsedTimer>
#include <QThread>

namespace shardscope {

PlanJob::PlanJob(QObject *parent) : QObject(parent) {}

PlanJob::~PlanJob()
{
    discard();
}

bool PlanJob::start(PlanRequest request, const QByteArray &key)
{
    if (m_worker)
        return false;
    const int id = ++m_id;
    m_key = key;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    request.cancel = m_cancel.get();
    // Progress from the worker thread, throttled there, queued to this object's thread
    // (dropped if the job is gone first; the destructor joins the worker anyway).
    auto lastReport = std::make_shared<QElapsedTimer>();
    lastReport->start();
    request.progress = [this, id, lastReport](std::int64_t done, std::int64_t total) {
        if (lastReport->elapsed() < progressMilliseconds && done < total)
            return;
        lastReport->restart();
        QMetaObject::invokeMethod(
            this,
            [this, id, done, total] {
                if (id == m_id && m_worker)
                    emit progressed(done, total);
            },
            Qt::QueuedConnection);
    };
    auto outcome = std::make_shared<Outcome>();
    m_worker = QThread::create([request = std::move(request), outcome] {
        QElapsedTimer clock;
        clock.start();
        outcome->result = plan(request);
        outcome->milliseconds = double(clock.nsecsElapsed()) / 1e6;
    });
    connect(m_worker, &QThread::finished, this, [this, id, outcome] { workerEnded(id, outcome); });
    m_worker->start(QThread::LowPriority);
    return true;
}

void PlanJob::cancel()
{
    if (m_worker && m_cancel)
        m_cancel->store(true);
}

void PlanJob::discard()
{
    if (!m_worker)
        return;
    cancel();
    m_worker->wait();
    delete m_worker;
    m_worker = nullptr;
    m_key.clear();
    ++m_id; // its queued finished and progress calls, if any, are now stale
}

void PlanJob::workerEnded(int id, const std::shared_ptr<Outcome> &outcome)
{
    if (id != m_id || !m_worker)
        return; // discarded
    m_worker->wait();
    delete m_worker;
    m_worker = nullptr;
    const QByteArray key = std::exchange(m_key, {});
    emit finished(key, outcome->result, outcome->milliseconds);
}

} // namespace shardscope
