#pragma once

#include "scenariochangecommand.h"

#include <QElapsedTimer>
#include <QObject>
#include <functional>

class QUndoStack;

namespace shardscope {

class Session;

/// The window's undo history of the Session: every change of the scenario or unit, from
/// any control, lesson step or opened file, becomes a ScenarioChangeCommand on one
/// QUndoStack (bursts merge: see ScenarioChangeCommand). Undo and redo write the Session
/// back without recording themselves.
class ScenarioHistory : public QObject
{
    Q_OBJECT
public:
    /// Records the changes of `session`. `dragging` says whether a slider is held (a
    /// drag merges into one step); the defaults are the session's state now.
    ScenarioHistory(Session *session, std::function<bool()> dragging, QObject *parent = nullptr);

    /// The stack the Edit menu's Undo and Redo act on.
    QUndoStack *undoStack() const { return m_undo; }
    /// Runs `change` (any number of Session edits) and records it as one step.
    void asOneChange(const std::function<void()> &change);
    /// Forgets the history and takes the session's state as where it starts (the window
    /// does this when first shown, after flags, files and lessons set it up).
    void startHere();
    /// Puts the session back to the state this history was created with, as one
    /// undoable step.
    void resetToDefaults();

private:
    void record();
    void restore(const ScenarioSnapshot &snapshot);

    Session *m_session;
    std::function<bool()> m_dragging;
    QUndoStack *m_undo;
    ScenarioSnapshot m_snapshot; ///< the session as last recorded on the stack
    QByteArray m_snapshotKey;    ///< m_snapshot.key()
    ScenarioSnapshot m_defaults; ///< the session as the history began
    QElapsedTimer m_clock;       ///< times changes, to merge bursts
    bool m_restoring = false;    ///< an undo or redo is writing the session
    bool m_justRestored = false; ///< no change since the last undo or redo
    int m_batch = 0;             ///< > 0 inside asOneChange()
};

} // namespace shardscope
