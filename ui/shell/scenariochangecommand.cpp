#include "scenariochangecommand.h"

#include "scenariochanges.h"
#include "scenariofile.h"
#include "session.h"

#include <QJsonDocument>
#include <QStringList>

namespace shardscope {

ScenarioSnapshot ScenarioSnapshot::of(const Session &session)
{
    return {session.scenario(), session.unit(), session.modelIsScaled()};
}

QByteArray ScenarioSnapshot::key() const
{
    return QJsonDocument(scenarioToJson(scenario, unit)).toJson(QJsonDocument::Compact) +
           (scaled ? "+scaled" : "");
}

ScenarioChangeCommand::ScenarioChangeCommand(ScenarioSnapshot before, QByteArray beforeKey,
                                             ScenarioSnapshot after, QByteArray afterKey,
                                             QStringList keys, qint64 atMs, bool dragging,
                                             bool mergeable, Restore restore)
    : m_before(std::move(before)), m_beforeKey(std::move(beforeKey)), m_after(std::move(after)),
      m_afterKey(std::move(afterKey)), m_keys(std::move(keys)), m_atMs(atMs), m_dragging(dragging),
      m_mergeable(mergeable), m_restore(std::move(restore))
{
    updateText();
}

void ScenarioChangeCommand::undo()
{
    m_restore(m_before);
}

void ScenarioChangeCommand::redo()
{
    if (!m_pushed) {
        m_pushed = true;
        return;
    }
    m_restore(m_after);
}

bool ScenarioChangeCommand::mergeWith(const QUndoCommand *other)
{
    if (other->id() != id())
        return false;
    const auto *next = static_cast<const ScenarioChangeCommand *>(other);
    const bool held = m_dragging && next->m_dragging;
    if (!next->m_mergeable || next->m_keys != m_keys ||
        (!held && next->m_atMs - m_atMs > mergeWindowMs))
        return false;
    m_after = next->m_after;
    m_afterKey = next->m_afterKey;
    m_atMs = next->m_atMs;
    m_dragging = next->m_dragging;
    if (m_afterKey == m_beforeKey)
        setObsolete(true); // back where it began: nothing to undo
    updateText();
    return true;
}

void ScenarioChangeCommand::updateText()
{
    QStringList parts;
    for (const ScenarioChange &c :
         scenarioChanges(m_before.scenario, m_before.unit, m_after.scenario, m_after.unit))
        parts << c.text();
    if (parts.isEmpty())
        parts << QStringLiteral("the model"); // a model from the slider, same settings
    if (parts.size() > 3) {
        const auto more = parts.size() - 2;
        parts.resize(2);
        parts << QStringLiteral("%1 more").arg(more);
    }
    setText(parts.join(QStringLiteral(", ")));
}

} // namespace shardscope
