#pragma once

#include "chartexport.h"

#include <QDialog>

class QComboBox;
class QLineEdit;

namespace shardscope {

/// File > Export chart's first step: the slide's title and caption, editable, and its
/// size (1920 x 1080 for slides, 3840 x 2160, 1280 x 720 for a projector), before the
/// save dialog asks where. The title starts as the one `shardscope export` gives the same
/// chart (the registry's slide title, e.g. the verdict), so the window and the command
/// line title a slide alike; an empty title or caption leaves that line out.
class ExportSlideDialog : public QDialog
{
    Q_OBJECT
public:
    /// Fields filled from `defaults` (a size not in the list is added to it).
    explicit ExportSlideDialog(const ExportOptions &defaults, QWidget *parent = nullptr);

    /// The options as edited: the title and caption trimmed, the chosen size.
    ExportOptions options() const;
    QLineEdit *titleEdit() const { return m_title; }
    QLineEdit *captionEdit() const { return m_caption; }
    QComboBox *sizeCombo() const { return m_size; }

private:
    QLineEdit *m_title = nullptr;
    QLineEdit *m_caption = nullptr;
    QComboBox *m_size = nullptr;
};

} // namespace shardscope
