#include "scenariohistory.h"

#include "scenariochanges.h"
#include "session.h"

#include <QUndoStack>

namespace shardscope {

ScenarioHistory::ScenarioHistory(Session *session, std::function<bool()> dragging, QObject *parent)
    : QObject(parent), m_session(session), m_dragging(std::move(dragging)),
      m_undo(new QUndoStack(this))
{
    m_snapshot = ScenarioSnapshot::of(*m_session);
    m_snapshotKey = m_snapshot.key();
    m_defaults = m_snapshot;
    m_clock.start();
    connect(m_session, &Session::changed, this, &ScenarioHistory::record);
}

void ScenarioHistory::startHere()
{
    m_undo->clear();
    m_snapshot = ScenarioSnapshot::of(*m_session);
    m_snapshotKey = m_snapshot.key();
}

void ScenarioHistory::record()
{
    if (m_restoring || m_batch > 0)
        return;
    ScenarioSnapshot now = ScenarioSnapshot::of(*m_session);
    QByteArray key = now.key();
    if (key == m_snapshotKey)
        return; // the same settings again (a preset chosen twice)
    QStringList keys;
    for (const ScenarioChange &c :
         scenarioChanges(m_snapshot.scenario, m_snapshot.unit, now.scenario, now.unit))
        keys << c.key;
    auto *command = new ScenarioChangeCommand(
        m_snapshot, m_snapshotKey, now, key, keys, m_clock.elapsed(), m_dragging && m_dragging(),
        !m_justRestored, [this](const ScenarioSnapshot &s) { restore(s); });
    m_justRestored = false;
    m_snapshot = std::move(now);
    m_snapshotKey = std::move(key);
    m_undo->push(command);
}

void ScenarioHistory::asOneChange(const std::function<void()> &change)
{
    ++m_batch;
    change();
    --m_batch;
    record();
}

void ScenarioHistory::restore(const ScenarioSnapshot &snapshot)
{
    m_restoring = true;
    m_session->setUnit(snapshot.unit);
    m_session->setScenario(snapshot.scenario, snapshot.scaled);
    m_restoring = false;
    m_justRestored = true; // the next change is a new step, not part of this one
    m_snapshot = snapshot;
    m_snapshotKey = snapshot.key();
}

void ScenarioHistory::resetToDefaults()
{
    asOneChange([this] {
        m_session->setUnit(m_defaults.unit);
        m_session->setScenario(m_defaults.scenario, m_defaults.scaled);
    });
}

} // namespace shardscope
