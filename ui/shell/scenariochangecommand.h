#pragma once

#include "format.h"
#include "scenario.h"

#include <QStringList>
#include <QUndoCommand>
#include <functional>

namespace shardscope {

class Session;

/// Everything one undo step puts back: the scenario, the display unit, and whether the
/// model came from the size slider (Session::modelIsScaled).
struct ScenarioSnapshot
{
    Scenario scenario;
    ByteUnit unit = ByteUnit::GB;
    bool scaled = false;

    /// The model's current state.
    static ScenarioSnapshot of(const Session &session);
    /// The scenario and unit as compact scenario-file JSON, plus the scaled flag: equal
    /// keys, equal snapshots (io/scenariofile.h writes every setting).
    QByteArray key() const;
};

/// One change of the Session on the window's undo stack (QUndoStack): the state
/// before and after, named by what changed ("GPUs → 64"). A burst of changes to the same
/// settings merges into one step: while a slider is held, or when each comes within
/// mergeWindowMs of the last, so a drag or a held arrow key is undone at once. A merge
/// that ends where it began removes the step.
class ScenarioChangeCommand : public QUndoCommand
{
public:
    /// Restores a snapshot into the model; the window marks it as its own change so it
    /// does not record it again.
    using Restore = std::function<void(const ScenarioSnapshot &)>;
    /// Changes that arrive closer together than this, to the same settings, are one step.
    static constexpr qint64 mergeWindowMs = 500;

    /// A change that has already happened (the first redo() does nothing).
    /// `beforeKey` and `afterKey` are the snapshots' key()s, which the caller has already
    /// computed (a key is a JSON serialization, about 0.15 ms: a drag step must not pay
    /// for three). `keys` are the scenario-file keys that changed (scenarioChanges());
    /// `atMs` is when, on any monotonic clock in milliseconds; `dragging` says a slider
    /// was held at the time. A change that is not `mergeable` (the first after an undo
    /// or redo) starts a step of its own.
    ScenarioChangeCommand(ScenarioSnapshot before, QByteArray beforeKey, ScenarioSnapshot after,
                          QByteArray afterKey, QStringList keys, qint64 atMs, bool dragging,
                          bool mergeable, Restore restore);

    /// Puts the state before the change back.
    void undo() override;
    /// Puts the state after the change back (not on the push: it has happened).
    void redo() override;
    /// One id for every scenario change, so QUndoStack offers them to mergeWith().
    int id() const override { return 0x5ca1e; }
    /// Takes `other` into this step when `other` is mergeable, changes the same settings
    /// as the last change merged here, and a slider is still held or it came within
    /// mergeWindowMs.
    bool mergeWith(const QUndoCommand *other) override;

    /// The state this step undoes to.
    const ScenarioSnapshot &before() const { return m_before; }
    /// The state this step redoes to (the last change merged into it).
    const ScenarioSnapshot &after() const { return m_after; }

private:
    void updateText();

    ScenarioSnapshot m_before;
    QByteArray m_beforeKey; ///< m_before.key()
    ScenarioSnapshot m_after;
    QByteArray m_afterKey; ///< m_after.key()
    QStringList m_keys;    ///< what the last change merged here changed
    qint64 m_atMs;         ///< when it came
    bool m_dragging;       ///< whether a slider was held then
    bool m_mergeable;      ///< may join the step before it
    Restore m_restore;
    bool m_pushed = false; ///< the first redo() is QUndoStack::push's: already done
};

} // namespace shardscope
