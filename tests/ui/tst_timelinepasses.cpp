// Each render pass of the timeline on its own, without a widget: a trace with
// hand-placed events, a layout, a mapping of exactly 1 px per us, and the
// states the passes prepare, checked against the positions worked out by hand.
#include "timeline/passes/blockingcallspass.h"
#include "timeline/passes/counterpass.h"
#include "timeline/passes/findpass.h"
#include "timeline/passes/gapbandspass.h"
#include "timeline/passes/headerspass.h"
#include "timeline/passes/instantspass.h"
#include "timeline/passes/markspass.h"
#include "timeline/passes/slicespass.h"
#include "timeline/passes/summarypass.h"
#include "timeline/passes/timelineframe.h"
#include "timeline/timelinedata.h"
#include "trace/traceloader.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

#include <set>
#include <typeindex>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

// pid 100: thread 1 "main"
//   train [0, 1000] > aten::mm [100, 300] > cudaLaunchKernel [110, 120] (correlation 1)
//                   > aten::add [400, 500] > cudaStreamSynchronize [410, 480]
//                                          > cudaLaunchKernel [485, 488] (correlation 2)
//                   > 50 "tiny" events of 1 us, 1 us apart, [600, 699]
// thread 2 "loader": load [0, 500]; a counter "Memory": 10 at 0, 50 at 200, 20 at 600.
// pid 0, stream 7: gemm [150, 400] and relu [490, 600]; an instant at 700 on
// main, and a global one at 950.
std::string traceJson()
{
    std::string s = R"({"traceEvents": [
 {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python train.py"}},
 {"ph": "M", "name": "thread_name", "pid": 100, "tid": 1, "args": {"name": "main"}},
 {"ph": "M", "name": "thread_name", "pid": 100, "tid": 2, "args": {"name": "loader"}},
 {"ph": "X", "cat": "cpu_op", "name": "train", "pid": 100, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": 100, "dur": 200},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 110, "dur": 10,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 100, "tid": 1, "ts": 400, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 100, "tid": 1, "ts": 410, "dur": 70},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 485, "dur": 3,
  "args": {"correlation": 2}},
 {"ph": "X", "cat": "cpu_op", "name": "load", "pid": 100, "tid": 2, "ts": 0, "dur": 500},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 150, "dur": 250,
  "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 490, "dur": 110,
  "args": {"device": 0, "stream": 7, "correlation": 2}},
 {"ph": "C", "name": "Memory", "pid": 100, "ts": 0, "args": {"allocated": 10}},
 {"ph": "C", "name": "Memory", "pid": 100, "ts": 200, "args": {"allocated": 50}},
 {"ph": "C", "name": "Memory", "pid": 100, "ts": 600, "args": {"allocated": 20}},
 {"ph": "i", "s": "t", "name": "mark", "pid": 100, "tid": 1, "ts": 700},
 {"ph": "i", "s": "g", "name": "window end", "pid": 100, "tid": 1, "ts": 950})";
    for (int i = 0; i < 50; ++i)
        s += ",\n {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"tiny\", \"pid\": 100, \"tid\": 1, \"ts\": " +
             std::to_string(600 + 2 * i) + ", \"dur\": 1}";
    return s + "\n]}";
}

constexpr int kLeft = 200, kTop = 30, kWidth = 1000;

} // namespace

class TstTimelinePasses : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const TimelineData> m_data;
    TimelineLayout m_layout;
    TimeMapping m_map;
    int m_main = -1, m_loader = -1, m_gpu = -1;

    int trackNamed(const QString &name) const
    {
        for (size_t t = 0; t < m_data->tracks().size(); ++t)
            if (m_data->tracks()[t].name == name)
                return int(t);
        return -1;
    }
    // The frame: the pinned rows at the top, the others 3 px under them.
    FrameContext context(const FrameMarks *marks = nullptr) const
    {
        const QRect plot(kLeft, kTop, kWidth, 700);
        const int ph = m_layout.pinnedHeight();
        return FrameContext{*m_data,
                            m_layout,
                            m_map,
                            plot,
                            {FrameSection{true, &m_layout.pinnedRows(), QRect(kLeft, kTop, kWidth, ph), 0},
                             FrameSection{false, &m_layout.rows(),
                                          QRect(kLeft, kTop + ph + 3, kWidth, plot.height() - ph - 3), 0}},
                            marks};
    }
    // What one pass prepares for a section (or the plot when section is -1).
    template <class Pass>
    std::unique_ptr<PassState> prepared(const Pass &pass, const FrameContext &ctx, int section) const
    {
        auto state = pass.newState();
        const FrameSection *sec = section < 0 ? nullptr : &ctx.sections[section];
        std::vector<PassWork> work;
        pass.plan(ctx, sec, work);
        for (const PassWork &w : work)
            pass.prepare(ctx, sec, w, *state);
        NameCache names;
        const QFont font;
        pass.finish(ctx, sec, QFontMetrics(font), names, *state);
        return state;
    }
    // Viewport x of a time in us from the trace's start.
    static int x(int us) { return kLeft + us; }
    // The section row of a track at a depth.
    const LayoutRow &rowOf(int track, int depth = 0) const
    {
        const auto sp = m_layout.spanOf(track);
        return (sp.pinned ? m_layout.pinnedRows() : m_layout.rows())[size_t(sp.first + depth)];
    }
    int rowTop(const FrameContext &ctx, int track, int depth = 0) const
    {
        return ctx.section(m_layout.spanOf(track).pinned).top(rowOf(track, depth));
    }
    // The layout's (last) counter row.
    const LayoutRow *counterRow() const
    {
        const LayoutRow *row = nullptr;
        for (const LayoutRow &r : m_layout.rows())
            if (r.kind == LayoutRow::Kind::Counter)
                row = &r;
        return row;
    }
    static bool has(const std::vector<QRect> &v, const QRect &r)
    {
        return std::find(v.begin(), v.end(), r) != v.end();
    }

private Q_SLOTS:
    void init()
    {
        m_data = TimelineData::build({loadTraceFromMemory(traceJson(), "passes.json")});
        m_main = trackNamed(QStringLiteral("main"));
        m_loader = trackNamed(QStringLiteral("loader"));
        m_gpu = -1;
        for (size_t t = 0; t < m_data->tracks().size(); ++t)
            if (m_data->tracks()[t].gpu)
                m_gpu = int(t);
        QVERIFY(m_main >= 0 && m_loader >= 0 && m_gpu >= 0);
        m_layout.reset(m_data.get());
        QVERIFY(m_layout.spanOf(m_gpu).pinned); // GPU tracks pinned by default
        m_map = TimeMapping(m_data->minTime(), m_data->minTime() + 1'000'000, kWidth); // 1 px per us
    }

    void everyPassHasANameAndAStateOfItsOwn()
    {
        std::set<std::string> names;
        std::set<std::type_index> states;
        for (const TimelinePass *p : timelinePasses()) {
            QVERIFY(names.insert(p->name()).second);
            auto s = p->newState();
            QVERIFY2(states.insert(std::type_index(typeid(*s))).second, p->name());
        }
        QVERIFY(names.size() >= 12);
    }

    void slicesAreBoxesOfTheirCategoryWithTheirNames()
    {
        const FrameContext ctx = context();
        const auto st = prepared(SlicesPass(), ctx, 1);
        const auto &s = stateAs<SlicesPass::State>(*st);
        const int cpu = palette::categoryColor("cpu_op");
        const auto &boxes = s.boxes.byColor[size_t(cpu)];
        const int top0 = rowTop(ctx, m_main, 0) + 1, top1 = rowTop(ctx, m_main, 1) + 1;
        const int h = TimelineData::kRowHeight - 2;
        // train [0, 1000] and aten::mm [100, 300], less the hairline between boxes.
        QVERIFY(has(boxes, QRect(x(0), top0, 999, h)));
        QVERIFY(has(boxes, QRect(x(100), top1, 199, h)));
        QVERIFY(has(boxes, QRect(x(400), top1, 99, h)));
        // The 50 tiny events fold into one block [600, 699], of the folded shade.
        QCOMPARE(s.boxes.foldedRuns, size_t(1));
        QCOMPARE(s.boxes.foldedEvents, size_t(50));
        QVERIFY(has(s.boxes.byColor[size_t(cpu + palette::kFoldedOffset)], QRect(x(600), top1, 99, h)));
        // Named: aten::mm in its box (3 px in), the folded block by its count.
        bool mm = false, folded = false;
        for (const BoxLabel &l : s.labels) {
            mm |= l.text == QStringLiteral("aten::mm") && l.rect.left() == x(100) + 3 && l.rect.top() == top1;
            folded |= l.text == QStringLiteral("50 events") && l.rect.left() == x(600) + 3;
        }
        QVERIFY(mm);
        QVERIFY(folded);
        QVERIFY(s.pending.empty());
        // Kernels are in the pinned section, not here.
        const auto pinned = prepared(SlicesPass(), ctx, 0);
        QVERIFY(has(stateAs<SlicesPass::State>(*pinned).boxes.byColor[size_t(palette::categoryColor("kernel"))],
                    QRect(x(150), ctx.section(true).top(rowOf(m_gpu)) + 1, 249, h)));
    }

    void summaryIsTheBusyTimeOfWhatIsCollapsed()
    {
        m_layout.setTrackCollapsed(m_main, true);
        const FrameContext ctx = context();
        auto st = prepared(SummaryPass(), ctx, 1);
        const int top = rowTop(ctx, m_main) + 1, h = TimelineData::kRowHeight - 2;
        // The union of main's top-level events: train [0, 1000], no hairline.
        QCOMPARE(stateAs<SummaryPass::State>(*st).busy(), std::vector<QRect>{QRect(x(0), top, 1000, h)});
        // A collapsed process: its header shows main [0, 1000] and loader [0, 500], inside it.
        const int group = m_data->tracks()[size_t(m_main)].group;
        m_layout.setGroupCollapsed(group, true);
        const FrameContext collapsed = context();
        st = prepared(SummaryPass(), collapsed, 1);
        int headerTop = -1, hh = -1;
        for (const LayoutRow &r : m_layout.rows())
            if (r.kind == LayoutRow::Kind::GroupHeader && r.group == group) {
                headerTop = collapsed.section(false).top(r);
                hh = r.height - 6; // 3 px in from either edge
            }
        const std::vector<QRect> want{QRect(x(0), headerTop + 3, 1000, hh), QRect(x(0), headerTop + 3, 500, hh)};
        auto got = stateAs<SummaryPass::State>(*st).busy();
        std::sort(got.begin(), got.end(), [](const QRect &a, const QRect &b) { return a.width() > b.width(); });
        QCOMPARE(got, want);
    }

    void countersKeepEachValueAsAStepArea()
    {
        const FrameContext ctx = context();
        const auto st = prepared(CounterPass(), ctx, 1);
        const auto &areas = stateAs<CounterPass::State>(*st).areas;
        const LayoutRow *row = counterRow();
        QVERIFY(row);
        const int top = ctx.section(false).top(*row) + 2, h = row->height - 4;
        // 0..50 over h: 10 is h/5, 50 the full height; the last sample one column wide.
        const int h10 = int(std::lround(10.0 / 50 * h)), h20 = int(std::lround(20.0 / 50 * h));
        const std::vector<QRect> want{QRect(x(0), top + h - h10, 200, h10), QRect(x(200), top, 400, h),
                                      QRect(x(600), top + h - h20, 1, h20)};
        QCOMPARE(areas, want);
    }

    void blockMaximaAreTheLargestSampleOfEveryRange()
    {
        TimelineCounter tc;
        std::vector<double> values(100'003);
        uint64_t seed = 12345;
        for (double &v : values) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v = double(seed >> 40);
        }
        tc.buildMaxPyramid(values);                // what the timeline data builds for each counter
        QCOMPARE(tc.maxPyramid.size(), size_t(5)); // blocks of 8, 64, ..., 32,768: 12,501 down to 4
        for (int k = 0; k < 2000; ++k) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            const size_t b = size_t(seed >> 33) % values.size();
            const size_t len = 1 + size_t(seed >> 13) % (k % 2 ? 50 : values.size() - b);
            const size_t e = std::min(values.size(), b + len);
            const double want = *std::max_element(values.begin() + ptrdiff_t(b), values.begin() + ptrdiff_t(e));
            QCOMPARE(tc.maxOf(values, b, e), want);
        }
    }

    void aCounterPeakAmongThousandsOfSamplesIsDrawn()
    {
        // 20,000 samples over 1000 us, value 1 but one of 1000 at 612.35 us.
        std::string json = R"({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "train", "pid": 100, "tid": 1, "ts": 0, "dur": 1000})";
        for (int i = 0; i < 20'000; ++i) {
            const int ns = i * 50;
            json += ",\n {\"ph\": \"C\", \"name\": \"Load\", \"pid\": 100, \"ts\": " + std::to_string(ns / 1000) +
                    "." + QStringLiteral("%1").arg(ns % 1000, 3, 10, QLatin1Char('0')).toStdString() +
                    ", \"args\": {\"v\": " + (i == 12'247 ? "1000" : "1") + "}}";
        }
        json += "\n]}";
        m_data = TimelineData::build({loadTraceFromMemory(json, "counter.json")});
        m_layout.reset(m_data.get());
        m_map = TimeMapping(m_data->minTime(), m_data->minTime() + 1'000'000, kWidth);
        const FrameContext ctx = context();
        const auto st = prepared(CounterPass(), ctx, 1);
        const auto &areas = stateAs<CounterPass::State>(*st).areas;
        const LayoutRow *row = counterRow();
        QVERIFY(row);
        const int h = row->height - 4;
        // One column per us: the peak's column (612) is full height, its
        // neighbours the height of 1 (at least a pixel).
        int peak = -1;
        for (const QRect &a : areas)
            if (a.height() == h)
                peak = a.left();
        QCOMPARE(peak, x(612));
        // Touching columns of one height are one rect: before the peak, the peak, after it.
        QCOMPARE(areas.size(), size_t(3));
        QCOMPARE(areas.front().left(), x(0));
        QCOMPARE(areas.back().right() + 1, x(999) + 1);
        for (const QRect &a : areas)
            if (a.left() != x(612))
                QCOMPARE(a.height(), std::max(1, int(std::lround(1.0 / 1000 * h))));
    }

    void instantsMarkTheirThread()
    {
        const FrameContext ctx = context();
        const auto st = prepared(InstantsPass(), ctx, 1);
        QCOMPARE(stateAs<InstantsPass::State>(*st).marks,
                 std::vector<QRect>{QRect(x(700) - 1, rowTop(ctx, m_main) + 1, 3, 4)});
    }

    void globalInstantsAreLinesAcrossThePlot()
    {
        const FrameContext ctx = context();
        const auto st = prepared(GlobalInstantsPass(), ctx, -1);
        QCOMPARE(stateAs<GlobalInstantsPass::State>(*st).xs, std::vector<int>{x(950)});
    }

    void headersAreBandsAcrossThePlot()
    {
        const FrameContext ctx = context();
        QImage image(kLeft + kWidth + 10, 800, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter p(&image);
        for (const FrameSection &sec : ctx.sections)
            HeadersPass().paintBackground(p, ctx, sec);
        p.end();
        for (const LayoutRow &r : m_layout.rows())
            if (r.kind == LayoutRow::Kind::GroupHeader) {
                const int y = ctx.section(false).top(r) + r.height / 2;
                QCOMPARE(QColor(image.pixel(x(10), y)), QColor(palette::chrome::kHeaderBackground));
                QCOMPARE(QColor(image.pixel(x(990), y)), QColor(palette::chrome::kHeaderBackground));
                QCOMPARE(QColor(image.pixel(kLeft - 5, y)), QColor(Qt::white)); // the names panel is the view's
            }
    }

    void gapBandsCoverEachGapOverItsDevicesTracks()
    {
        const FrameContext ctx = context();
        const auto &gaps = m_data->files()[0].sync.syncGaps;
        QVERIFY(!gaps.empty());
        const auto pinned = prepared(GapBandsPass(), ctx, 0);
        const auto &bands = stateAs<GapBandsPass::State>(*pinned).bands;
        QCOMPARE(bands.size(), gaps.size());
        const TimeNs t0 = m_data->minTime();
        for (const SyncGap &g : gaps) {
            // Whole pixels: floor of the start, ceiling of the end, at 1 px per us.
            const int l = x(int((g.interval.start - t0) / 1000));
            const int r = x(int((g.interval.end - t0 + 999) / 1000));
            QVERIFY(has(bands, QRect(l, ctx.section(true).top(rowOf(m_gpu)), std::max(2, r - l),
                                     TimelineData::kRowHeight)));
        }
        // Nothing over the CPU threads.
        QVERIFY(stateAs<GapBandsPass::State>(*prepared(GapBandsPass(), ctx, 1)).bands.empty());
    }

    void blockingCallsStayOnTheirThreadWhateverTheDepthCap()
    {
        const FrameContext ctx = context();
        auto all = [&](const PassState &ps) {
            const auto &s = stateAs<BlockingCallsPass::State>(ps);
            std::vector<QRect> v = s.gapCalls;
            v.insert(v.end(), s.otherCalls.begin(), s.otherCalls.end());
            return v;
        };
        // cudaStreamSynchronize [410, 480] at depth 2 of main.
        QCOMPARE(all(*prepared(BlockingCallsPass(), ctx, 1)),
                 std::vector<QRect>{QRect(x(410), rowTop(ctx, m_main, 2), 70, TimelineData::kRowHeight)});
        // With the depth capped at 1 row it shows on the last shown row (depth 0).
        m_layout.setMaxDepth(m_main, 1);
        const FrameContext capped = context();
        QCOMPARE(all(*prepared(BlockingCallsPass(), capped, 1)),
                 std::vector<QRect>{QRect(x(410), rowTop(capped, m_main, 0), 70, TimelineData::kRowHeight)});
    }

    void findOutlinesTheMatchesWideEnoughToSee()
    {
        const TraceModel &model = *m_data->files()[0].model;
        std::vector<std::vector<char>> mask(1, std::vector<char>(model.strings().size(), 0));
        for (size_t id = 0; id < model.strings().size(); ++id) {
            const std::string_view s = model.str(StrId(id));
            mask[0][id] = s == "aten::mm" || s == "tiny";
        }
        FrameMarks marks;
        marks.names = &mask;
        const FrameContext ctx = context(&marks);
        const auto st = prepared(FindPass(), ctx, -1);
        const auto &s = stateAs<FindPass::State>(*st);
        // aten::mm's box, one pixel out; the 1 us tiny events are under 2 px: folded, not outlined.
        const int top = rowTop(ctx, m_main, 1) + 1;
        QCOMPARE(s.rects, std::vector<QRect>{QRect(x(100) - 1, top - 1, 202, TimelineData::kRowHeight)});
        QCOMPARE(s.pinnedCount, size_t(0));
        // No names, no work.
        const FrameContext none = context();
        QVERIFY(stateAs<FindPass::State>(*prepared(FindPass(), none, -1)).rects.empty());
    }

    void marksFollowTheSelectionTheRangeAndTheGaps()
    {
        const Track &mt = m_data->modelTrack(m_main);
        TimelineEvent launch, gemm{m_gpu, 0};
        for (uint32_t i = 0; i < mt.size(); ++i)
            if (m_data->name({m_main, i}) == "cudaLaunchKernel" && !launch.valid())
                launch = {m_main, i};
        QVERIFY(launch.valid());
        const std::vector<std::pair<TimelineEvent, TimelineEvent>> links{{launch, gemm}};
        const std::vector<int> marked{0};
        FrameMarks marks;
        marks.selected = launch;
        marks.links = &links;
        marks.markedGaps = &marked;
        marks.hasRange = true;
        marks.range0 = m_data->minTime() + 100'000;
        marks.range1 = m_data->minTime() + 300'500;
        const FrameContext ctx = context(&marks);
        const int h = TimelineData::kRowHeight - 2;

        const auto sel = prepared(SelectionPass(), ctx, -1);
        const auto &s = stateAs<SelectionPass::State>(*sel);
        QVERIFY(s.hasSelected);
        const QRect launchBox(x(110), rowTop(ctx, m_main, 2) + 1, 10, h);
        const QRect gemmBox(x(150), ctx.section(true).top(rowOf(m_gpu)) + 1, 250, h);
        QCOMPARE(s.selected.rect, launchBox.adjusted(-1, -1, 1, 1));
        QCOMPARE(s.selected.clip, ctx.section(false).area);
        QCOMPARE(s.links.size(), size_t(1));
        QCOMPARE(s.links[0].other.rect, gemmBox.adjusted(-1, -1, 1, 1));
        QCOMPARE(s.links[0].other.clip, ctx.section(true).area); // the kernel is pinned
        QCOMPARE(s.links[0].from, launchBox);
        QCOMPARE(s.links[0].to, gemmBox);

        const auto range = prepared(RangePass(), ctx, -1);
        const auto &r = stateAs<RangePass::State>(*range);
        QVERIFY(r.shown);
        QCOMPARE(r.left, x(100));
        QCOMPARE(r.right, x(301)); // the end's pixel rounded up

        const auto gaps = prepared(GapMarksPass(), ctx, -1);
        const auto &g = stateAs<GapMarksPass::State>(*gaps);
        QCOMPARE(g.marked.size(), size_t(1)); // one GPU track on the gap's device
        QCOMPARE(g.marked[0].clip, ctx.section(true).area);
        QVERIFY(g.current.empty());
    }

    void aCollapsedThreadsBusyBandCoversItsInstants()
    {
        // The rows paint in layers, boxes in the order of their colours: the
        // busy band after the instant marks.
        m_layout.setTrackCollapsed(m_main, true);
        const FrameContext ctx = context();
        TimelineFrame frame;
        const QFont font;
        NameCache names;
        frame.prepare(ctx, TimelinePass::Update::Cached, QFontMetrics(font), names);
        QVERIFY(!frame.state<InstantsPass::State>(false).marks.empty());
        QImage image(kLeft + kWidth + 10, 800, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter p(&image);
        frame.paint(p, ctx, TimelinePass::Update::Cached, TimelinePass::Scope::Section);
        p.end();
        const int y = rowTop(ctx, m_main) + 3; // inside the mark (top + 1, 4 px high)
        QCOMPARE(QColor(image.pixel(x(700), y)), palette::color(palette::kBusyColor));
    }

    void theFramePaintsWhatThePassesPrepared()
    {
        const FrameContext ctx = context();
        TimelineFrame frame;
        const QFont font;
        NameCache names;
        frame.prepare(ctx, TimelinePass::Update::Cached, QFontMetrics(font), names);
        QCOMPARE(frame.state<SlicesPass::State>(false).boxes.foldedEvents, size_t(50));
        QImage image(kLeft + kWidth + 10, 800, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter p(&image);
        frame.paintBackgrounds(p, ctx);
        frame.paint(p, ctx, TimelinePass::Update::Cached, TimelinePass::Scope::Section);
        p.end();
        // Inside aten::mm's box, under its label's start: the category colour.
        const int y = rowTop(ctx, m_main, 1) + TimelineData::kRowHeight - 3;
        QCOMPARE(QColor(image.pixel(x(290), y)), palette::color(palette::categoryColor("cpu_op")));
        // Between boxes of the same row, the background shows.
        QCOMPARE(QColor(image.pixel(x(350), y)), QColor(Qt::white));
    }

    // A long slice right after a tiny one of the same colour shares its first
    // pixel column: the box is one, and the long slice keeps its label.
    void aLongSliceAfterATinyOneKeepsItsLabel()
    {
        const std::string json = R"({"traceEvents": [
 {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 0.3},
 {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 0.5, "dur": 900}
]})";
        m_data = TimelineData::build({loadTraceFromMemory(json, "long.json")});
        m_layout.reset(m_data.get());
        m_map = TimeMapping(m_data->minTime(), m_data->minTime() + 1'000'000, kWidth); // 1 px per us
        const FrameContext ctx = context();
        const auto st = prepared(SlicesPass(), ctx, 1);
        const auto &s = stateAs<SlicesPass::State>(*st);
        const auto &boxes = s.boxes.byColor[size_t(palette::categoryColor("cuda_runtime"))];
        QCOMPARE(boxes.size(), size_t(1)); // one box over both
        QStringList labels;
        for (const BoxLabel &l : s.labels)
            labels << l.text;
        QVERIFY2(labels.contains(QStringLiteral("hipMemcpyWithStream")),
                 qPrintable(labels.join(QLatin1Char('|'))));
    }
};

QTEST_MAIN(TstTimelinePasses)
#include "tst_timelinepasses.moc"
