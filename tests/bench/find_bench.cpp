// Find benchmark (not a test): on a synthetic trace of N duration events, the
// time to build a NameMatcher (every name matched, every event counted) in
// plain and regex mode, one "n of m" look-up, and the paint of the matches'
// outlines at full zoom-out, 1/100 and 1/10,000 of the trace. It sizes the page's
// limit above which the matcher is built on a worker.
// Run: QT_QPA_PLATFORM=offscreen find_bench [events] [repeats]
#include "synthetictrace.h"
#include "timeline/namematcher.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

template <typename F> double medianMs(int repeats, F &&f)
{
    std::vector<double> v;
    QElapsedTimer timer;
    for (int i = 0; i < repeats; ++i) {
        timer.start();
        f();
        v.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const size_t events = argc > 1 ? size_t(std::stoull(argv[1])) : 2'000'000;
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;

    test::SyntheticTrace t;
    t.kernelsPerStep = 100;
    t.flows = false;
    t.steps = std::max<size_t>(1, events / (2 * (3 * t.kernelsPerStep + 3)));
    const auto data = TimelineData::build({t.build("bench_find.json")});
    std::printf("trace: %llu duration events, %zu tracks, %zu strings; median of %d, ms\n",
                (unsigned long long)data->summary().events, data->tracks().size(),
                data->files().front().model->strings().size(), repeats);

    struct Case {
        const char *what;
        QString pattern;
        bool regex, matchCase;
    };
    const Case cases[] = {{"plain, any case", QStringLiteral("KERNEL"), false, false},
                          {"plain, match case", QStringLiteral("relu_kernel"), false, true},
                          {"regex, any case", QStringLiteral("^(aten::mm|relu_kernel)$"), true, false}};
    std::shared_ptr<const NameMatcher> last;
    for (const Case &c : cases) {
        const double ms = medianMs(repeats, [&] {
            last = std::make_shared<const NameMatcher>(*data, c.pattern, c.regex, c.matchCase);
        });
        std::printf("%-28s build %8.2f   (%llu matches)\n", c.what, ms, (unsigned long long)last->eventCount());
    }
    // "n of m" of the last match in time
    const TimelineEvent lastMatch = last->previous({}, data->maxTime() + 1);
    uint64_t n = 0;
    const double ordinalMs = medianMs(repeats, [&] { n = last->ordinal(lastMatch); });
    std::printf("%-28s        %8.3f   (%llu of %llu)\n", "n of m, last match", ordinalMs, (unsigned long long)n,
                (unsigned long long)last->eventCount());

    TimelineView view;
    view.resize(1920, 1080);
    view.show();
    app.processEvents();
    view.setData(data);
    QImage image(view.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
    const TimeNs full = data->maxTime() - data->minTime();
    for (const TimeNs span : {TimeNs(0), full / 100, full / 10'000}) {
        if (span == 0)
            view.fitAll();
        else
            view.setVisibleRange(data->minTime() + full / 2 - span / 2, data->minTime() + full / 2 + span / 2);
        for (const bool on : {false, true}) {
            view.setHighlightedNames(on ? last->mask() : nullptr);
            const double ms = medianMs(repeats, [&] {
                QPainter p(&image);
                view.viewport()->render(&p);
            });
            const char *zoom = span == 0 ? "full zoom-out" : span == full / 100 ? "1/100" : "1/10,000";
            std::printf("paint, %-14s %-9s %8.2f   (%d outlines)\n", zoom, on ? "outlined" : "plain", ms,
                        view.highlightsPainted());
        }
    }
    return 0;
}
