#include "numberstable.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace shardscope {

NumbersTable::NumbersTable(QWidget *parent)
    : QWidget(parent), m_view(new QTableWidget), m_copyCsv(new QPushButton),
      m_copyMarkdown(new QPushButton), m_style(ChartStyle::light())
{
    setObjectName(QStringLiteral("numbersTable"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(4);
    m_view->setColumnCount(ReportTable::columnCount);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->verticalHeader()->setVisible(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->setAccessibleName(QStringLiteral("Memory per GPU, by component"));
    layout->addWidget(m_view, 1);
    auto *buttons = new QHBoxLayout;
    m_copyCsv->setText(QStringLiteral("Copy as CSV"));
    m_copyCsv->setToolTip(
        QStringLiteral("Exact bytes per GPU, comma-separated, for a spreadsheet"));
    m_copyMarkdown->setText(QStringLiteral("Copy as Markdown"));
    m_copyMarkdown->setToolTip(QStringLiteral("The table as shown, for slides and notes"));
    buttons->addStretch();
    buttons->addWidget(m_copyCsv);
    buttons->addWidget(m_copyMarkdown);
    layout->addLayout(buttons);
    connect(m_copyCsv, &QPushButton::clicked, this, &NumbersTable::copyCsv);
    connect(m_copyMarkdown, &QPushButton::clicked, this, &NumbersTable::copyMarkdown);
}

void NumbersTable::setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit)
{
    m_table = reportTable(s, r, unit);
    m_view->setUpdatesEnabled(false);
    m_view->setHorizontalHeaderLabels(m_table.headers);
    m_view->setRowCount(int(m_table.values.size()));
    for (std::size_t row = 0; row < m_table.values.size(); ++row) {
        for (int c = 0; c < ReportTable::columnCount; ++c) {
            QTableWidgetItem *item = m_view->item(int(row), c);
            if (!item) {
                item = new QTableWidgetItem;
                m_view->setItem(int(row), c, item);
            }
            item->setText(m_table.text(row, c));
            item->setTextAlignment(c == 0 ? Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter)
                                          : Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
            // The total over capacity reads in the overflow colour, as on the bars.
            const bool over = c == 9 && m_table.capacityBytes > 0 &&
                              m_table.values[row][9] > m_table.capacityBytes;
            item->setForeground(over ? QBrush(m_style.alert) : QBrush());
        }
    }
    m_view->setUpdatesEnabled(true);
    // As tall as its rows (up to four; more scroll), so the bars keep the height.
    const int rows = std::clamp(int(m_table.values.size()), 1, 4);
    const int rowHeight = m_view->verticalHeader()->defaultSectionSize();
    m_view->setFixedHeight(m_view->horizontalHeader()->sizeHint().height() + rows * rowHeight +
                           2 * m_view->frameWidth() +
                           m_view->horizontalScrollBar()->sizeHint().height());
    const bool any = !m_table.values.empty();
    m_copyCsv->setEnabled(any);
    m_copyMarkdown->setEnabled(any);
}

void NumbersTable::setChartStyle(const ChartStyle &style)
{
    m_style = style;
    applyPanelStyle(this, style);
    const QFont f = style.font(font(), 11);
    m_view->setFont(f);
    m_view->horizontalHeader()->setFont(style.font(font(), 11, true));
    m_copyCsv->setFont(f);
    m_copyMarkdown->setFont(f);
}

void NumbersTable::copyCsv() const
{
    QApplication::clipboard()->setText(toCsv(m_table));
}

void NumbersTable::copyMarkdown() const
{
    QApplication::clipboard()->setText(toMarkdown(m_table));
}

} // namespace shardscope
