#include "chartstyle.h"

#include <QWidget>

namespace shardscope {

int applyChartStyle(QWidget *root, const ChartStyle &style)
{
    if (!root)
        return 0;
    if (auto *view = dynamic_cast<StyledView *>(root)) {
        view->setChartStyle(style);
        return 1;
    }
    int styled = 0;
    for (QWidget *child : root->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
        styled += applyChartStyle(child, style);
    return styled;
}

QPalette chartPalette(const QPalette &base, const ChartStyle &style)
{
    QPalette p = base;
    const QColor &canvas = style.background;
    const QColor &ink = style.ink;
    const QColor field = style.isDark() ? mixColors(ink, canvas, 0.07) : canvas;
    const QColor button = mixColors(ink, canvas, style.isDark() ? 0.16 : 0.08);
    const QColor dimmed = mixColors(ink, canvas, 0.45);
    for (const QPalette::ColorGroup group :
         {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        const bool disabled = group == QPalette::Disabled;
        p.setColor(group, QPalette::Window, canvas);
        p.setColor(group, QPalette::Base, field);
        p.setColor(group, QPalette::AlternateBase, mixColors(ink, canvas, 0.05));
        p.setColor(group, QPalette::Button, button);
        p.setColor(group, QPalette::WindowText, disabled ? dimmed : ink);
        p.setColor(group, QPalette::Text, disabled ? dimmed : ink);
        p.setColor(group, QPalette::ButtonText, disabled ? dimmed : ink);
        p.setColor(group, QPalette::PlaceholderText, dimmed);
    }
    return p;
}

void applyPanelStyle(QWidget *panel, const ChartStyle &style)
{
    panel->setPalette(chartPalette(panel->palette(), style));
    panel->setAutoFillBackground(true);
}

} // namespace shardscope
