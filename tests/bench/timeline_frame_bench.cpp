// Timeline frame-time benchmark (not a test): builds a trace of about [events]
// events in memory (or loads one), renders the timeline offscreen at full
// zoom-out and three deeper zooms, and prints paint ms per frame (median, p95).
// Two kinds of frame per zoom:
//   moving  the range moves 2 px per frame (panning): geometry rebuilt each frame
//   still   the same range repainted: the cached geometry is only replayed
// The rows of a frame are built on [threads] threads (0: the ideal thread count,
// 1: serial). Shapes (--shape):
//   steps     (default) one host thread of steps, a data loader, two GPU streams
//   deep      100 threads of 40-deep stacks, the outer 20 levels Python frames;
//             measured with the frames shown, then hidden
//   ranks     64 ranks of one job, each a steps trace
//   counters  100 counter tracks holding the events (random walks), one thread
// --file PATH loads a trace file instead (its deepest stack is printed).
// Run: QT_QPA_PLATFORM=offscreen timeline_frame_bench [events] [frames] [threads]
//          [--shape steps|deep|ranks|counters] [--file PATH]
#include "synthetictrace.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"
#include "trace/tracebuilder.h"
#include "trace/traceloader.h"

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

// 100 threads; per thread, iterations of a 40-deep stack: levels 0-19 Python
// frames, 20-39 ops, ten short leaves under the deepest.
TraceModelPtr deepTrace(size_t events)
{
    constexpr int kThreads = 100, kDepth = 40, kLeaves = 10;
    TraceInfo info;
    info.path = "bench_deep.json";
    info.format = "json";
    TraceBuilder b(info);
    const IdValue pid = b.id(int64_t(777));
    b.setProcessName(pid, b.intern("python train.py"));
    const StrId py = b.internCategory("python_function"), op = b.internCategory("cpu_op");
    std::vector<StrId> names;
    for (int d = 0; d < kDepth; ++d)
        names.push_back(d < 20 ? b.intern("model.py(" + std::to_string(10 * d) + "): layer_" + std::to_string(d))
                               : b.intern("aten::op_" + std::to_string(d)));
    const StrId leaf = b.intern("aten::leaf");
    const size_t perIteration = kDepth + kLeaves;
    const size_t iterations = std::max<size_t>(1, events / (kThreads * perIteration));
    for (int t = 0; t < kThreads; ++t) {
        const uint32_t track = b.track(pid, b.id(int64_t(1000 + t)));
        b.setThreadName(track, b.intern("thread " + std::to_string(t)));
        TimeNs at = 1'000'000'000 + TimeNs(t) * 7'000;
        for (size_t i = 0; i < iterations; ++i) {
            const TimeNs len = 400'000 + TimeNs((i * 7919 + size_t(t) * 104729) % 200'000);
            for (int d = 0; d < kDepth; ++d)
                b.addComplete(track, at + TimeNs(d) * 1'000, len - TimeNs(2 * d) * 1'000, names[size_t(d)],
                              d < 20 ? py : op, {}, {});
            const TimeNs inner = at + TimeNs(kDepth) * 1'000, room = len - TimeNs(2 * kDepth) * 1'000;
            for (int k = 0; k < kLeaves; ++k)
                b.addComplete(track, inner + room * k / kLeaves, room / (2 * kLeaves), leaf, op, {}, {});
            at += len + 50'000;
        }
    }
    return b.finish();
}

// 100 counter tracks that hold the events, random walks over the span of a
// small steps trace, and one thread event spanning it.
TraceModelPtr counterTrace(size_t events)
{
    constexpr int kCounters = 100;
    test::SyntheticTrace t;
    t.kernelsPerStep = 100;
    t.flows = false;
    t.steps = 20;
    TraceModelPtr base = t.build("bench_counters.json");
    // Rebuilt with the counters: the synthetic steps give the span.
    TraceInfo info;
    info.path = "bench_counters.json";
    info.format = "json";
    TraceBuilder b(info);
    const IdValue pid = b.id(int64_t(4242));
    const TimeNs t0 = base->minTime(), span = std::max<TimeNs>(1, base->maxTime() - base->minTime());
    const size_t samples = std::max<size_t>(2, events / kCounters);
    const uint32_t main = b.track(pid, b.id(int64_t(1)));
    b.addComplete(main, t0, span, b.intern("train"), b.internCategory("cpu_op"), {}, {});
    const StrId key = b.intern("value");
    for (int c = 0; c < kCounters; ++c) {
        const StrId name = b.intern("counter " + std::to_string(c));
        // A random walk in [0, 1000], as a memory or bandwidth counter moves.
        double v = 500;
        uint64_t seed = 40503u * uint64_t(c + 1);
        for (size_t i = 0; i < samples; ++i) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v = std::clamp(v + double(int64_t(seed >> 59) - 16), 0.0, 1000.0);
            b.addCounterValue(pid, name, key, t0 + TimeNs(double(span) * double(i) / double(samples)), v);
            b.countCounterEvent();
        }
    }
    return b.finish();
}

int maxDepth(const TimelineData &data)
{
    size_t d = 0;
    for (const TimelineTrack &t : data.tracks())
        d = std::max(d, t.levels.size());
    return int(d);
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::vector<std::string> positional;
    std::string shape = "steps", file;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--shape" && i + 1 < argc)
            shape = argv[++i];
        else if (a == "--file" && i + 1 < argc)
            file = argv[++i];
        else
            positional.push_back(a);
    }
    const size_t events = positional.size() > 0 ? size_t(std::stoull(positional[0])) : 10'000'000;
    const int frames = positional.size() > 1 ? std::atoi(positional[1].c_str()) : 60;
    setTimelineGeometryThreads(positional.size() > 2 ? std::atoi(positional[2].c_str()) : 0);

    QElapsedTimer timer;
    timer.start();
    std::vector<TraceModelPtr> models;
    auto steps = [](size_t n, const std::string &name) {
        test::SyntheticTrace t;
        t.kernelsPerStep = 100;
        t.flows = false;
        t.steps = std::max<size_t>(1, n / (2 * (3 * t.kernelsPerStep + 3)));
        return t.build(name);
    };
    if (!file.empty()) {
        shape = file;
        models.push_back(loadTrace(file));
    } else if (shape == "deep") {
        models.push_back(deepTrace(events));
    } else if (shape == "ranks") {
        for (int r = 0; r < 64; ++r)
            models.push_back(steps(events / 64, "rank-" + std::to_string(r) + ".json"));
    } else if (shape == "counters") {
        models.push_back(counterTrace(events));
    } else if (shape == "steps") {
        models.push_back(steps(events, "bench_10M.json"));
    } else {
        std::fprintf(stderr, "unknown shape '%s': steps, deep, ranks or counters\n", shape.c_str());
        return 2;
    }
    const double buildS = timer.elapsed() / 1e3;
    timer.restart();
    const auto data = TimelineData::build(std::move(models));
    const double indexS = timer.elapsed() / 1e3;
    std::printf("%s: %llu duration events, %zu tracks, %zu counters, deepest stack %d, %zu sync gaps; "
                "built in %.1f s, timeline index in %.2f s\n",
                shape.c_str(), (unsigned long long)data->summary().events, data->tracks().size(),
                data->counters().size(), maxDepth(*data), data->gaps().size(), buildS, indexS);

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
    const Zoom zooms[] = {{"full zoom-out", 0},
                          {"1/100 of the trace", full / 100},
                          {"1/10,000", full / 10'000},
                          {"1/1,000,000", std::max<TimeNs>(full / 1'000'000, 50)}};
    std::printf("viewport %dx%d, %d frames per row, rows built on %d thread(s); times in ms per paint\n",
                view.viewport()->width(), view.viewport()->height(), frames, timelineGeometryThreads());
    std::printf("%-20s %10s %10s %10s %10s %10s %12s %10s\n", "zoom", "span", "moving p50", "moving p95",
                "moving max", "still p50", "still p95", "boxes");
    bool python = false; // measured with the frames shown, then hidden
    for (const TimelineFile &f : data->files())
        python = python || f.hasPythonFrames;
    for (int pass = 0; pass < (python ? 2 : 1); ++pass) {
        if (python) {
            view.setShowPython(pass == 0);
            std::printf("Python frames %s\n", pass == 0 ? "shown" : "hidden");
        }
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
    }
    return 0;
}
