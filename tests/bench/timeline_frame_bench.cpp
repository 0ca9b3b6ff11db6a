// Timeline frame-time benchmark (not a test): builds a 10M-event trace in memory,
// renders the timeline offscreen at full zoom-out and three deeper zooms, and
// prints paint ms per frame (median, p95). Two kinds of frame per zoom:
//   moving  the range moves 2 px per frame (panning): geometry rebuilt each frame
//   still   the same range repainted: the cached geometry is only replayed
// The rows of a frame are built on [threads] threads (0: the ideal thread count,
// 1: serial).
// Run: QT_QPA_PLATFORM=offscreen timeline_frame_bench [events] [frames] [threads]
#include "synthetictrace.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

struct Stats {
    double median, p95, max;
};

Stats stats(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))]; };
    return {at(0.5), at(0.95), v.back()};
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const size_t events = argc > 1 ? size_t(std::stoull(argv[1])) : 10'000'000;
    const int frames = argc > 2 ? std::atoi(argv[2]) : 60;
    setTimelineGeometryThreads(argc > 3 ? std::atoi(argv[3]) : 0);

    QElapsedTimer timer;
    timer.start();
    test::SyntheticTrace t;
    t.kernelsPerStep = 100;
    t.flows = false;
    t.steps = std::max<size_t>(1, events / (2 * (3 * t.kernelsPerStep + 3)));
    const TraceModelPtr model = t.build("bench_10M.json");
    const double buildS = timer.elapsed() / 1e3;
    timer.restart();
    const auto data = TimelineData::build({model});
    const double indexS = timer.elapsed() / 1e3;
    std::printf("trace: %llu duration events, %zu tracks, %zu sync gaps; built in %.1f s, "
                "timeline index in %.2f s\n",
                (unsigned long long)data->summary().events, data->tracks().size(), data->gaps().size(),
                buildS, indexS);

    TimelineView view;
    view.resize(1920, 1080);
    view.show();
    app.processEvents();
    view.setData(data);
    QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);

    const TimeNs full = data->maxTime() - data->minTime();
    const TimeNs mid = data->minTime() + full / 2;
    struct Zoom {
        const char *name;
        TimeNs span;
    };
    const Zoom zooms[] = {{"full zoom-out", 0}, {"1/100 of the trace", full / 100},
                          {"1/10,000", full / 10'000}, {"1/1,000,000", std::max<TimeNs>(full / 1'000'000, 50)}};
    std::printf("viewport %dx%d, %d frames per row, rows built on %d thread(s); times in ms per paint\n",
                view.viewport()->width(), view.viewport()->height(), frames, timelineGeometryThreads());
    std::printf("%-20s %10s %10s %10s %10s %10s %12s %10s\n", "zoom", "span", "moving p50", "moving p95",
                "moving max", "still p50", "still p95", "boxes");
    for (const Zoom &z : zooms) {
        if (z.span == 0)
            view.fitAll();
        else
            view.setVisibleRange(mid - z.span / 2, mid + z.span / 2);
        std::vector<double> moving, still;
        for (int f = 0; f < frames; ++f) {
            view.panBy(f % 2 ? 2 : -2); // stays in range, forces a rebuild
            QPainter p(&image);
            timer.restart();
            view.viewport()->render(&p);
            moving.push_back(timer.nsecsElapsed() / 1e6);
        }
        for (int f = 0; f < frames; ++f) {
            QPainter p(&image);
            timer.restart();
            view.viewport()->render(&p);
            still.push_back(timer.nsecsElapsed() / 1e6);
        }
        const Stats m = stats(moving), s = stats(still);
        std::printf("%-20s %10s %10.2f %10.2f %10.2f %10.2f %12.2f %10zu\n", z.name,
                    qPrintable(QString::number(view.mapping().span() / 1e6, 'f', 3) + QStringLiteral(" ms")),
                    m.median, m.p95, m.max, s.median, s.p95,
                    view.frame().drawn(false) + view.frame().drawn(true));
    }
    return 0;
}
