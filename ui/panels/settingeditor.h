#pragma once

#include "session.h"
#include "settings.h"

#include <QObject>
#include <QString>
#include <functional>

class QWidget;

namespace shardscope {

/// The window's control for one settings-table entry (core/settings.h), bound to
/// the scenario model. Range, unit suffix, tooltip and accessible name come from
/// the table, so the window takes exactly what the command line and scenario
/// files take:
/// - an Integer: a spin box in display units (a double spin box with no decimals
///   when the range passes 2^31), or a combo box of its allowed values;
/// - a Choice: a combo box of its ids (or the display names given);
/// - a Boolean: a check box labelled with the table's label.
/// Without an `apply` it edits as windowEdit() says, and without a `choiceName` its
/// items are named by windowChoiceName(), so every panel's control of one setting does
/// the same. The widget's objectName is "setting:<key>", which tests and lessons use to
/// find it (a second control of the same setting renames its widget).
class SettingEditor : public QObject
{
    Q_OBJECT
public:
    /// How an edit reaches the scenario; the default applies the value with
    /// applySettings() (so a schedule change also resets chunks).
    using Apply = std::function<void(Scenario &, std::int64_t)>;
    /// Display names for Choice items, by value; empty uses the table's ids.
    using ChoiceName = std::function<QString(std::int64_t)>;

    SettingEditor(const Setting &setting, Session *session, QObject *parent, Apply apply = {},
                  ChoiceName choiceName = {});

    /// The control; owned by whatever layout it is added to.
    QWidget *widget() const { return m_widget; }
    const Setting &setting() const { return m_setting; }
    /// Shows the scenario's value without emitting an edit. A value that is not a
    /// whole number of display units (a scenario file may hold any byte count) shows
    /// rounded down; it changes only when the user edits the control.
    void sync(const Scenario &s);

private:
    void edited(std::int64_t storageValue);

    const Setting &m_setting;
    Session *m_session;
    Apply m_apply;
    QWidget *m_widget = nullptr;
};

/// The window's edit of `setting` where it is not applySettings()'s: t, p and c keep the
/// data-parallel degree (setDegreesKeepingData(), core/defaults.h), and the schedule
/// brings back the session's last interleaved v (chunksForSchedule() with
/// Session::lastInterleavedChunks()). Empty (applySettings()) for every other setting.
SettingEditor::Apply windowEdit(const Setting &setting, const Session *session);

/// The window's names of `setting`'s choices where the ids are not what a reader wants:
/// the pipeline schedules' display names ("Interleaved 1F1B"). Empty (the ids) otherwise.
SettingEditor::ChoiceName windowChoiceName(const Setting &setting);

} // namespace shardscope
