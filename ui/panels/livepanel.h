#pragma once

#include "chartparts.h"
#include "chartview.h"
#include "probeclient.h"

#include <QWidget>
#include <array>
#include <optional>
#include <vector>

class QCPBars;
class QCPItemLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QPushButton;

namespace shardscope {

class LazyRefresh;

class Session;

/// The Live GPUs tab (docs/probe.md): what this machine's GPUs hold now beside what the
/// Session predicts for them.
///
/// GPU i attached to this machine is taken as global rank i. For each GPU the panel draws
/// a pair of bars: predicted (stacked by component, MemoryChart's colours, from the report
/// group holding rank i) and measured (the probe's used bytes, plus the driver-reserved
/// bytes as a hatched segment above them when the probe reports them). Under each pair:
/// "measured − predicted: +3.2 GB". Each GPU's total (the probe's total_bytes) is a dashed
/// line across its pair. Units follow Session::unit().
///
/// Without a reading (not started, or the probe failed) the panel draws the predicted bars
/// of the first min(GPUs, 8) ranks and says why in the status line; a failure clears the
/// measured bars rather than showing a stale reading. Readings are applied as they come
/// and the plot asks for a queued replot, so a burst of readings costs one redraw.
///
/// Its text fits its pixels after each layout, as every chart's does: where a pair is too
/// narrow the tick labels drop to the rank (and the difference), the values above the bars
/// to the figure alone, then to smaller type, and a value that would still cover another
/// or cross the line is hidden (its tooltip keeps it).
///
/// Its look follows a ChartStyle (setChartStyle): the plot as every chart, the measured
/// bars in Okabe-Ito black on a light canvas and in the ink on a dark one, and the Start
/// button and status line in chartPalette() colours at 14 pt x fontScale.
class LivePanel : public ChartView
{
    Q_OBJECT
public:
    /// Ranks drawn before any reading (one node's worth).
    static constexpr int gpusWithoutReading = 8;

    /// Builds the panel on `model` (not owned; must outlive the panel). Nothing runs
    /// until Start is pressed (or client()->start() is called).
    explicit LivePanel(Session *session, QWidget *parent = nullptr);

    /// The probe client; configure program, interval, time-out or environment here.
    ProbeClient *client() const { return m_client; }
    /// The Start / Stop button.
    QPushButton *startButton() const { return m_startButton; }
    /// The plot, for tests and export.
    /// The full status line, e.g. "Reading 8 GPUs every 1 s from shardscope-probe" or the
    /// failure reason (the label may show it elided).
    QString statusText() const { return m_status; }
    /// True while the status line reports a failure.
    bool statusIsError() const { return m_statusIsError; }
    /// Changes the look (light, dark, presentation) and redraws (queued).
    /// The current look.
    /// Colour of the measured bars and their values in `style`.
    static QColor measuredColor(const ChartStyle &style);

    /// Number of GPU pairs drawn.
    int pairCount() const { return int(m_pairs.size()); }
    /// True when a reading is drawn.
    bool hasReading() const { return m_sample.has_value(); }
    /// The reading drawn, if any.
    const std::optional<ProbeSample> &reading() const { return m_sample; }
    /// Tick label under pair i ("GPU 0 · rank 0" and the difference; in large type, the
    /// difference's figure on a line of its own).
    QString pairLabel(int i) const;
    /// Height of pair i's predicted component, display units (0 without a prediction).
    double predictedHeight(int i, Component c) const;
    /// Top of pair i's predicted stack, display units.
    double predictedTop(int i) const;
    /// Pair i's measured used memory, display units (0 without a reading).
    double measuredUsedHeight(int i) const;
    /// Pair i's driver-reserved segment, display units (0 when not reported).
    double measuredReservedHeight(int i) const;
    /// Pair i's capacity line (the probe's total_bytes), display units; 0 without a reading.
    double capacityValue(int i) const;
    /// measured used − predicted total for pair i in bytes; empty unless both exist.
    std::optional<qint64> differenceBytes(int i) const;
    /// "measured − predicted: +3.2 GB" for pair i; empty unless both exist.
    QString differenceText(int i) const;
    /// Tooltip text for pair i: GPU identity, exact bytes, processes.
    QString tooltipText(int i) const;
    /// The value texts above the bars, two per pair (predicted, measured); hidden ones too.
    QVector<const QCPItemText *> valueItems() const;
    /// The capacity line's label, right of the axis rect.
    const QCPItemText *capacityLabel() const { return m_predictedBars.label(); }
    /// Index of the pair under a widget-relative plot position, or -1.
    int pairAt(const QPoint &pos) const;

public slots:
    /// Draws a reading (what the client's sample() signal is connected to).
    void showReading(const shardscope::ProbeSample &sample);
    /// Clears the reading and shows `reason` as the status line.
    void showFailure(const QString &reason);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Pair
    {
        int rank = 0; ///< global rank = attached GPU index
        std::optional<ComponentBytes> predicted;
        std::optional<ProbeGpu> measured;
    };

    void rebuild();
    /// Value text k (pair k / 2; even: predicted, odd: measured) in words of `level`
    /// (0: "Predicted\n1,195 GB", 1: the figure alone, "1,195 GB", 2: the bare number,
    /// "1,195", the value axis naming the unit).
    QString valueText(int k, int level) const;
    /// Tick label of pair i at `level` (0: pairLabel(), 1: the rank and the difference,
    /// 2: the rank alone).
    QString tickText(int i, int level) const;
    /// The x axis' titles for the current tick level, longest first (fitAxisTitle()).
    QStringList xTitles() const;
    /// Sets the value texts' words, font, colour and anchor from the fitted level.
    void applyValueTexts();
    /// The value texts' font at valueText() `level`, at `points` pt (0: the style's size).
    QFont valueFont(int level, double points) const;
    /// The tick labels' font at `points` pt (0: the style's size for this many pairs).
    QFont tickFont(double points) const;
    /// Sets the tick labels, their font and the x title from the fitted level.
    void applyTickLabels();
    /// After each layout: legend columns, value ticks, the words and size of the tick
    /// labels and value texts for the pixels a pair has, headroom for the texts, axis
    /// titles that fit, and the values placed clear of each other and the line
    /// (placeBarValues(), chartparts.h), as MemoryChart does.
    void fitText() override;
    /// Styles the plot, the controls and the labels in chartStyle().
    void restyle() override;
    /// The plot and the controls' fonts in chartStyle() (the palette is the window's until
    /// setChartStyle() gives the panel one).
    void applyStyle();
    void setStatus(const QString &text, bool error);
    void updateStatusLabel();
    void toggle();
    void onRunningChanged(bool running);
    void showTooltip(QMouseEvent *event);

    Session *m_session = nullptr;
    ProbeClient *m_client = nullptr;
    QPushButton *m_startButton = nullptr;
    QLabel *m_statusLabel = nullptr;
    QCustomPlot *m_plot = nullptr;
    CapacityBars m_predictedBars; ///< stacked by component; the capacity label
    QCPBars *m_usedBars = nullptr;
    QCPBars *m_reservedBars = nullptr;
    std::vector<QCPItemLine *> m_capacityLines;
    std::vector<QCPItemText *> m_valueTexts;
    QVector<double> m_valueKeys;     ///< each value text's bar key
    QVector<double> m_valueTops;     ///< each value text's bar top, display units
    std::vector<bool> m_valueWanted; ///< value text k has a bar to name
    int m_valueLevel = 0;            ///< valueText() level fitted to the pixels
    double m_valuePoints = 0;        ///< the value font's fitted size, 0 for the style's
    int m_tickLevel = 0;             ///< tickText() level fitted to the pixels
    int m_tickStride = 1;            ///< every k-th tick label shown
    double m_tickPoints = 0;         ///< the tick font's fitted size, 0 for the style's
    bool m_anyDifference = false;    ///< some pair has both bars
    double m_top = 0;                ///< the tallest bar or line, display units
    double m_headroom = 1.22;        ///< the memory axis' top over m_top
    bool m_capacityShown = false;    ///< a capacity line is drawn (so is its label, room given)
    QCPItemText *m_message = nullptr;

    std::vector<Pair> m_pairs;
    std::optional<ProbeSample> m_sample;
    QString m_status;
    bool m_statusIsError = false;
    LazyRefresh *m_refresh = nullptr; ///< when rebuild() runs (hidden tabs wait)
    ByteUnit m_unit = ByteUnit::GB;
};

} // namespace shardscope
