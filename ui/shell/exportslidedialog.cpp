#include "exportslidedialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QPushButton>

namespace shardscope {

ExportSlideDialog::ExportSlideDialog(const ExportOptions &defaults, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(QStringLiteral("Export chart"));
    auto *form = new QFormLayout(this);
    m_title = new QLineEdit(defaults.title, this);
    m_title->setObjectName(QStringLiteral("exportTitle"));
    m_title->setPlaceholderText(QStringLiteral("No title line"));
    m_title->setMinimumWidth(560);
    m_caption = new QLineEdit(defaults.caption, this);
    m_caption->setObjectName(QStringLiteral("exportCaption"));
    m_caption->setPlaceholderText(QStringLiteral("No caption line"));
    m_size = new QComboBox(this);
    m_size->setObjectName(QStringLiteral("exportSize"));
    m_size->addItem(QStringLiteral("1920 × 1080 (slides)"), QSize(1920, 1080));
    m_size->addItem(QStringLiteral("3840 × 2160 (4K)"), QSize(3840, 2160));
    m_size->addItem(QStringLiteral("1280 × 720 (projector)"), QSize(1280, 720));
    int at = m_size->findData(defaults.size);
    if (at < 0) {
        m_size->addItem(
            QStringLiteral("%1 × %2").arg(defaults.size.width()).arg(defaults.size.height()),
            defaults.size);
        at = m_size->count() - 1;
    }
    m_size->setCurrentIndex(at);
    form->addRow(QStringLiteral("&Title"), m_title);
    form->addRow(QStringLiteral("&Caption"), m_caption);
    form->addRow(QStringLiteral("&Size (PNG; SVG and PDF keep its shape)"), m_size);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Save)->setText(QStringLiteral("Save as…"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

ExportOptions ExportSlideDialog::options() const
{
    ExportOptions o;
    o.size = m_size->currentData().toSize();
    o.title = m_title->text().trimmed();
    o.caption = m_caption->text().trimmed();
    return o;
}

} // namespace shardscope
