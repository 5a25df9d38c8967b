#include "settingeditor.h"

#include "defaults.h"
#include "qtext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalBlocker>
#include <QSpinBox>
#include <climits>
#include <type_traits>

namespace shardscope {

namespace {

/// " MiB", " GB", " %"; counts (GPUs, sequences) show no suffix.
QString suffixFor(const Setting &s)
{
    if (s.displayUnit.empty() || s.displayUnit == "sequences")
        return {};
    return QStringLiteral(" ") + toQString(s.displayUnit);
}

} // namespace

SettingEditor::Apply windowEdit(const Setting &setting, const Session *session)
{
    const std::string_view k = setting.key;
    if (k == "tp" || k == "pp" || k == "cp") {
        return [k](Scenario &s, std::int64_t value) {
            Layout &l = s.layout;
            const int v = int(value);
            setDegreesKeepingData(l, k == "tp" ? v : l.tensorParallel,
                                  k == "pp" ? v : l.pipelineParallel,
                                  k == "cp" ? v : l.contextParallel);
        };
    }
    if (k == "schedule") {
        return [session](Scenario &s, std::int64_t value) {
            s.training.schedule = PipelineSchedule(value);
            s.training.chunks =
                chunksForSchedule(s.training.schedule, session->lastInterleavedChunks());
        };
    }
    return {};
}

SettingEditor::ChoiceName windowChoiceName(const Setting &setting)
{
    if (setting.key == "schedule")
        return [](std::int64_t v) { return toQString(pipelineScheduleName(PipelineSchedule(v))); };
    return {};
}

SettingEditor::SettingEditor(const Setting &setting, Session *session, QObject *parent, Apply apply,
                             ChoiceName choiceName)
    : QObject(parent), m_setting(setting), m_session(session),
      m_apply(apply ? std::move(apply) : windowEdit(setting, session))
{
    if (!choiceName)
        choiceName = windowChoiceName(setting);
    const QString tip = toQString(setting.help);
    if (setting.kind == SettingKind::Boolean) {
        auto *box = new QCheckBox(toQString(setting.label));
        connect(box, &QCheckBox::toggled, this, [this](bool on) { edited(on ? 1 : 0); });
        m_widget = box;
    } else if (setting.kind == SettingKind::Choice || !setting.choices.empty()) {
        auto *box = new QComboBox;
        for (std::size_t i = 0; i < setting.choices.size(); ++i) {
            // A Choice's value is its index; an allowed-values Integer's is the number.
            const std::int64_t v = setting.kind == SettingKind::Choice
                                       ? std::int64_t(i)
                                       : std::stoll(std::string(setting.choices[i]));
            const QString text = choiceName ? choiceName(v)
                                 : setting.displayUnit.empty()
                                     ? toQString(setting.choices[i])
                                     : toQString(setting.choices[i]) + suffixFor(setting);
            box->addItem(text, int(v)); // small: indices and 1..8
        }
        // Any index change but sync()'s (it blocks signals): a click, a key, a test.
        connect(box, &QComboBox::currentIndexChanged, this, [this, box](int i) {
            if (i >= 0)
                edited(box->itemData(i).toLongLong());
        });
        m_widget = box;
    } else {
        // A spin box over the display range whose every change is an edit, in storage units.
        const auto setUpSpinBox = [this, &setting](auto *box) {
            using Value = decltype(box->value());
            using Box = std::remove_pointer_t<decltype(box)>;
            box->setRange(Value(setting.displayMin()), Value(setting.displayMax()));
            box->setSuffix(suffixFor(setting));
            box->setGroupSeparatorShown(true);
            box->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
            connect(box, &Box::valueChanged, this,
                    [this](Value v) { edited(std::int64_t(v) * m_setting.scale); });
            m_widget = box;
        };
        if (setting.displayMax() <= INT_MAX) {
            setUpSpinBox(new QSpinBox);
        } else {
            // Past 2^31 (1e12 elements): a double holds every whole number up to 2^53 exactly.
            auto *box = new QDoubleSpinBox;
            box->setDecimals(0);
            setUpSpinBox(box);
        }
    }
    m_widget->setObjectName(QStringLiteral("setting:") + toQString(setting.key));
    m_widget->setToolTip(tip);
    m_widget->setAccessibleName(toQString(setting.label));
    m_widget->setAccessibleDescription(tip);
}

void SettingEditor::edited(std::int64_t storageValue)
{
    if (!checkSettingValue(m_setting, storageValue).empty())
        return; // the control's range is the table's, so only a bug gets here
    m_session->edit([this, storageValue](Scenario &s) {
        if (m_apply) {
            m_apply(s, storageValue);
            return;
        }
        const SettingValue v{&m_setting, storageValue};
        applySettings(s, {&v, 1});
    });
}

void SettingEditor::sync(const Scenario &s)
{
    const QSignalBlocker blocker(m_widget);
    const std::int64_t v = m_setting.get(s);
    if (auto *box = qobject_cast<QCheckBox *>(m_widget))
        box->setChecked(v != 0);
    else if (auto *box = qobject_cast<QComboBox *>(m_widget))
        box->setCurrentIndex(box->findData(int(v)));
    else if (auto *box = qobject_cast<QSpinBox *>(m_widget))
        box->setValue(int(v / m_setting.scale));
    else if (auto *box = qobject_cast<QDoubleSpinBox *>(m_widget))
        box->setValue(double(v / m_setting.scale));
}

} // namespace shardscope
