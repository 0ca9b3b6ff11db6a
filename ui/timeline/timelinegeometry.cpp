#include "timeline/timelinegeometry.h"

#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace syncscope::ui {

void TimelineGeometry::clear()
{
    for (auto &b : boxes)
        b.clear();
    labels.clear();
    gapBands.clear();
    gapCalls.clear();
    otherCalls.clear();
    pending.clear();
    counterAreas.clear();
    boxCount = foldedRuns = foldedEvents = 0;
}

void TimelineGeometry::append(TimelineGeometry &&part)
{
    auto move = [](auto &to, auto &from) {
        if (to.empty())
            to = std::move(from);
        else
            to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    };
    for (size_t c = 0; c < boxes.size(); ++c)
        move(boxes[c], part.boxes[c]);
    move(labels, part.labels);
    move(pending, part.pending);
    move(gapBands, part.gapBands);
    move(gapCalls, part.gapCalls);
    move(otherCalls, part.otherCalls);
    move(counterAreas, part.counterAreas);
    boxCount += part.boxCount;
    foldedRuns += part.foldedRuns;
    foldedEvents += part.foldedEvents;
}

QString labelText(std::string_view s)
{
    if (s.size() <= kMaxLabelBytes)
        return QString::fromUtf8(s.data(), int(s.size()));
    size_t n = kMaxLabelBytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n; // s[n] starts a character: keep [0, n)
    return QString::fromUtf8(s.data(), int(n)) + QChar(0x2026);
}

const NameCache::Entry &NameCache::get(const TimelineData &data, uint32_t file, StrId id,
                                       const QFontMetrics &fm)
{
    const uint64_t key = (uint64_t(file) << 32) | id;
    auto it = m_entries.find(key);
    if (it != m_entries.end())
        return it->second;
    const std::string_view s = data.files()[file].model->str(id);
    Entry e;
    e.text = labelText(s); // capped before it is measured
    e.width = fm.horizontalAdvance(e.text);
    return m_entries.emplace(key, std::move(e)).first->second;
}

namespace {

struct RowBuilder {
    const TimeMapping &map;
    const QRect &plot;
    TimelineGeometry &g;
    int top = 0, height = 0;
    int lastColor = -1;
    size_t lastIndex = 0;
    int lastRight = INT32_MIN;

    // Pixel column range of [s, e): always at least one pixel.
    std::pair<int, int> columns(TimeNs s, TimeNs e) const
    {
        const int l = plot.left() + int(std::floor(map.toPixelClamped(s)));
        int r = plot.left() + int(std::floor(map.toPixelClamped(e)));
        return {std::max(l, plot.left() - 2), std::min(std::max(r, l + 1), plot.right() + 2)};
    }

    // Returns the rect added (or extended) for labelling.
    QRect add(int color, int l, int r, bool gapAfter)
    {
        int w = std::max(1, r - l);
        if (gapAfter && w >= 5)
            w -= 1; // a hairline between neighbouring boxes
        auto &batch = g.boxes[size_t(color)];
        // Two events in the same pixel column with the same colour: one rect.
        if (color == lastColor && l <= lastRight && !batch.empty()) {
            QRect &prev = batch[lastIndex];
            prev.setRight(std::max(prev.right(), l + w - 1));
            lastRight = prev.right() + 1;
            return QRect();
        }
        batch.emplace_back(l, top, w, height);
        lastColor = color;
        lastIndex = batch.size() - 1;
        lastRight = l + w;
        ++g.boxCount;
        return batch.back();
    }

    void label(const QRect &r, uint32_t file, StrId name, uint32_t count, int color)
    {
        if (r.width() - 6 < 12)
            return;
        g.pending.push_back({r, file, name, count, color});
    }
};

// Names the pending labels of a geometry: fits each name in its box.
void resolveLabels(const TimelineData &data, const QRect &plot, const QFontMetrics &fm, NameCache &names,
                   TimelineGeometry &g)
{
    constexpr int kPad = 3;
    const int ell = fm.horizontalAdvance(QChar(0x2026));
    g.labels.reserve(g.pending.size());
    for (const TimelineGeometry::PendingLabel &pl : g.pending) {
        TimelineGeometry::Label lab;
        lab.rect = QRect(pl.rect.left() + kPad, pl.rect.top(), pl.rect.width() - 2 * kPad, pl.rect.height());
        if (lab.rect.left() < plot.left() + kPad) { // keep names readable at the left edge
            lab.rect.setLeft(plot.left() + kPad);
            if (lab.rect.width() < 12)
                continue;
        }
        QString text;
        int textWidth = 0;
        if (pl.name != kNoStr) {
            const NameCache::Entry &e = names.get(data, pl.file, pl.name, fm);
            text = e.text;
            textWidth = e.width;
        } else {
            text = QStringLiteral("%1 events").arg(pl.count);
            textWidth = fm.horizontalAdvance(text);
        }
        if (text.isEmpty())
            continue;
        const int room = lab.rect.width();
        if (textWidth <= room) {
            lab.text = text;
        } else {
            // Proportional cut instead of elidedText(): thousands of labels a frame.
            const int n = int(double(text.size()) * double(room - ell) / double(textWidth)) - 1;
            if (n < 2)
                continue;
            lab.text = text.left(n) + QChar(0x2026);
        }
        lab.dark = palette::wantsDarkText(pl.color);
        g.labels.push_back(std::move(lab));
    }
    g.pending.clear();
}

// busy: a collapsed thread's summary, one colour and no names.
void buildLevel(const TimelineData &data, int trackIndex, const TimelineLevel &lvl, RowBuilder &rb,
                TimeNs foldNs, bool busy)
{
    const TimelineTrack &tt = data.tracks()[size_t(trackIndex)];
    const TimelineFile &file = data.files()[tt.file];
    const Track &mt = data.modelTrack(trackIndex);
    auto colorOf = [&](uint32_t e) { return busy ? palette::kBusyColor : int(file.catColor[mt.cat[e]]); };
    const TimeNs t0 = rb.map.start(), t1 = rb.map.end();
    const size_t n = lvl.events.size();
    size_t pos = TimelineData::firstEndingAtOrAfter(mt, lvl, 0, t0);
    while (pos < n) {
        const uint32_t e = lvl.events[pos];
        const TimeNs s = mt.start[e];
        if (s > t1)
            break;
        if (mt.dur[e] >= foldNs) {
            const int color = colorOf(e);
            auto [l, r] = rb.columns(s, mt.end(e));
            const QRect rect = rb.add(color, l, r, !busy);
            if (rect.width() >= 16 && !busy)
                rb.label(rect, tt.file, mt.name[e], 0, color);
            ++pos;
            continue;
        }
        // A run of narrow events: jump over everything that ends within foldNs of
        // the run, then take the next event if it is narrow and close.
        TimeNs runEnd = mt.end(e);
        size_t next = pos + 1;
        while (next < n && runEnd <= t1) {
            const size_t q = TimelineData::firstEndingAtOrAfter(mt, lvl, next, runEnd + foldNs);
            if (q > next)
                runEnd = std::max(runEnd, mt.end(lvl.events[q - 1]));
            next = q;
            if (q >= n)
                break;
            const uint32_t eq = lvl.events[q];
            if (mt.start[eq] - runEnd < foldNs && mt.dur[eq] < foldNs) {
                runEnd = std::max(runEnd, mt.end(eq));
                next = q + 1;
                continue;
            }
            break;
        }
        auto [l, r] = rb.columns(s, runEnd);
        if (next - pos == 1 || busy) {
            rb.add(colorOf(e), l, r, false);
        } else {
            const size_t w = TimelineData::widest(mt, lvl, pos, next);
            const int color = file.catColor[mt.cat[lvl.events[w]]];
            const QRect rect = rb.add(color + palette::kFoldedOffset, l, r, false);
            ++rb.g.foldedRuns;
            rb.g.foldedEvents += next - pos;
            if (rect.width() >= 60)
                rb.label(rect, tt.file, kNoStr, uint32_t(next - pos), color + palette::kFoldedOffset);
        }
        pos = next;
    }
}

void buildInstants(const TimelineData &data, int trackIndex, RowBuilder &rb)
{
    const Track &mt = data.modelTrack(trackIndex);
    const auto &ts = mt.instants.ts;
    if (ts.empty())
        return;
    auto it = std::lower_bound(ts.begin(), ts.end(), rb.map.start());
    while (it != ts.end() && *it <= rb.map.end()) {
        if (mt.instants.scope[size_t(it - ts.begin())] == 'g') { // drawn as a line across all tracks
            ++it;
            continue;
        }
        const int x = rb.plot.left() + int(std::floor(rb.map.toPixelClamped(*it)));
        rb.g.boxes[palette::kInstantColor].emplace_back(x - 1, rb.top, 3, 4);
        // One mark per two pixels is all the eye can tell apart.
        auto nextIt = std::lower_bound(it + 1, ts.end(), rb.map.toTime(x - rb.plot.left() + 2));
        it = nextIt;
    }
}

// A section's view of the layout: which rows, where.
struct Section {
    const TimelineLayout &layout;
    bool pinned;
    const std::vector<LayoutRow> &rows;
    QRect area;
    int scrollY;
    bool visible(const LayoutRow &r) const { return r.y + r.height > scrollY && r.y < scrollY + area.height(); }
    int top(const LayoutRow &r) const { return area.top() + r.y - scrollY; }
};

void buildGaps(const TimelineData &data, const Section &sec, const TimeMapping &map, TimelineGeometry &g)
{
    const TimeNs t0 = map.start(), t1 = map.end();
    const QRect &plot = sec.area;
    for (const TimelineFile &file : data.files()) {
        const auto &gaps = file.sync.syncGaps;
        for (const auto &dg : file.deviceGaps) {
            std::vector<std::pair<int, int>> ys;
            for (int ti : dg.tracks) {
                const TimelineLayout::Span sp = sec.layout.spanOf(ti);
                if (sp.count == 0 || sp.pinned != sec.pinned)
                    continue;
                const LayoutRow &first = sec.rows[size_t(sp.first)];
                const LayoutRow &last = sec.rows[size_t(sp.first + sp.count - 1)];
                const int y0 = first.y, y1 = last.y + last.height;
                if (y1 > sec.scrollY && y0 < sec.scrollY + plot.height())
                    ys.emplace_back(plot.top() + y0 - sec.scrollY, y1 - y0);
            }
            if (ys.empty())
                continue;
            // Idle intervals never overlap, so ends are sorted as well.
            auto it = std::partition_point(dg.gaps.begin(), dg.gaps.end(), [&](uint32_t gi) {
                return gaps[gi].interval.end < t0;
            });
            int bandL = 0, bandR = INT32_MIN;
            auto flush = [&] {
                if (bandR == INT32_MIN)
                    return;
                for (auto [y, h] : ys)
                    g.gapBands.emplace_back(bandL, y, std::max(2, bandR - bandL), h);
            };
            while (it != dg.gaps.end() && gaps[*it].interval.start <= t1) {
                const Interval &iv = gaps[*it].interval;
                const int l = plot.left() + int(std::floor(map.toPixelClamped(iv.start)));
                const int r = plot.left() + int(std::ceil(map.toPixelClamped(iv.end)));
                if (l <= bandR + 1) {
                    bandR = std::max(bandR, r);
                } else {
                    flush();
                    bandL = l;
                    bandR = r;
                }
                const TimeNs after = map.toTime(bandR - plot.left() + 1);
                it = std::partition_point(it + 1, dg.gaps.end(),
                                          [&](uint32_t gi) { return gaps[gi].interval.end < after; });
            }
            flush();
        }
    }
}

void buildSyncCalls(const TimelineData &data, const Section &sec, const TimeMapping &map, int trackIndex,
                    TimelineGeometry &g)
{
    // Per track, one list per kind, so a pixel column is visited once: after a
    // mark, jump to the first call starting past it (a sync per step of a long
    // run is thousands of calls at full zoom-out).
    const TimelineTrack &tt = data.tracks()[size_t(trackIndex)];
    const TimelineFile &file = data.files()[tt.file];
    const auto &calls = file.sync.syncCalls;
    const TimelineLayout::Span sp = sec.layout.spanOf(trackIndex);
    const QRect &plot = sec.area;
    const TimeNs t0 = map.start(), t1 = map.end();
    for (int kind = 0; kind < 2; ++kind) {
        const std::vector<uint32_t> &list = kind ? tt.gapCalls : tt.otherCalls;
        auto byStart = [&](uint32_t c, TimeNs t) { return calls[c].start < t; };
        auto it = std::lower_bound(list.begin(), list.end(), t0 - file.maxSyncCallDur, byStart);
        while (it != list.end() && calls[*it].start <= t1) {
            const SyncCall &c = calls[*it];
            if (c.end() < t0) {
                ++it;
                continue;
            }
            // A call below the depth cap (or under a collapsed thread) shows on
            // the track's last shown row: a blocking call never disappears.
            const int d = sec.layout.shownDepth({trackIndex, c.event.index});
            const int row = sp.first + std::clamp(d, 0, sp.count - 1);
            const LayoutRow &r = sec.rows[size_t(row)];
            int l = plot.left() + int(std::floor(map.toPixelClamped(c.start)));
            int rr = plot.left() + int(std::floor(map.toPixelClamped(c.end())));
            if (rr - l < 3) { // keep a blocking call visible however short
                l -= 1;
                rr = l + 3;
            }
            if (sec.visible(r))
                (kind ? g.gapCalls : g.otherCalls).emplace_back(l, sec.top(r), rr - l, r.height);
            it = std::lower_bound(it + 1, list.end(), map.toTime(rr - plot.left() + 1), byStart);
        }
    }
}

// A counter as a step area: per pixel column the largest value that holds in
// it, so a short peak is never lost (min/max decimation, upper envelope).
void buildCounter(const TimelineData &data, const Section &sec, const TimeMapping &map, const LayoutRow &row,
                  TimelineGeometry &g)
{
    const TimelineCounter &tc = data.counters()[size_t(row.counter)];
    const CounterSeries &cs = data.counterSeries(row.counter);
    const QRect &plot = sec.area;
    const int top = sec.top(row) + 2, h = row.height - 4;
    const double lo = std::min(0.0, tc.minValue), hi = std::max(tc.maxValue, lo);
    auto height = [&](double v) { return hi > lo ? int(std::lround((v - lo) / (hi - lo) * h)) : 0; };
    const auto &ts = cs.ts;
    // The value at map.start() is the last sample at or before it.
    size_t i = size_t(std::upper_bound(ts.begin(), ts.end(), map.start()) - ts.begin());
    if (i > 0)
        --i;
    while (i < ts.size() && ts[i] <= map.end()) {
        const int l = plot.left() + int(std::floor(map.toPixelClamped(ts[i])));
        // Every sample in this pixel column: keep the largest.
        const TimeNs colEnd = map.toTime(l - plot.left() + 1);
        double v = cs.value[i];
        size_t j = i + 1;
        while (j < ts.size() && ts[j] < colEnd)
            v = std::max(v, cs.value[j++]);
        const TimeNs until = j < ts.size() ? ts[j] : cs.ts.back();
        int r = j < ts.size() ? plot.left() + int(std::floor(map.toPixelClamped(until))) : l + 1;
        r = std::max(r, l + 1);
        const int bh = std::max(height(v), v != lo ? 1 : 0);
        if (bh > 0)
            g.counterAreas.emplace_back(l, top + h - bh, r - l, bh);
        i = j;
    }
}

std::atomic<int> g_threads{0};

QThreadPool &rowPool()
{
    // Its own pool: the rows of a frame never wait behind a long job.
    // Never destroyed: no thread is joined during static destruction.
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool;
        p->setMaxThreadCount(std::max(1, QThread::idealThreadCount() - 1));
        return p;
    }();
    return *pool;
}

} // namespace

void setTimelineGeometryThreads(int threads) { g_threads = std::max(0, threads); }

int timelineGeometryThreads()
{
    const int t = g_threads.load();
    if (t > 0)
        return t;
    // On two cores a second builder only contends with the painter and the
    // rest of the desktop (measured: no gain, see the README); from four on,
    // the rows go wide.
    const int ideal = QThread::idealThreadCount();
    return ideal >= 4 ? ideal : 1;
}

void buildTimelineGeometry(const TimelineData &data, const TimelineLayout &layout, bool pinned,
                           const TimeMapping &map, const QRect &area, int scrollY, const QFontMetrics &fm,
                           NameCache &names, TimelineGeometry &out)
{
    buildTimelineGeometry(data, layout, map, {GeometrySection{pinned, area, scrollY, &out}}, fm, names);
}

void buildTimelineGeometry(const TimelineData &data, const TimelineLayout &layout, const TimeMapping &map,
                           const std::vector<GeometrySection> &sections, const QFontMetrics &fm, NameCache &names)
{
    const TimeNs foldNs = std::max<TimeNs>(1, map.toDuration(kFoldPixels));
    std::vector<Section> secs;
    for (const GeometrySection &gs : sections) {
        gs.out->clear();
        secs.push_back({layout, gs.pinned, gs.pinned ? layout.pinnedRows() : layout.rows(), gs.area, gs.scrollY});
    }
    // Tasks: a row, the gap bands of a section, or the sync calls of a track
    // whose first row is scrolled away.
    struct Task {
        size_t sec;
        const LayoutRow *row; // nullptr: gaps
        bool callsOnly = false;
        int busyTrack = -1; // a collapsed process or rank: this track's busy time in its header
    };
    std::vector<Task> work;
    for (size_t si = 0; si < secs.size(); ++si) {
        const Section &sec = secs[si];
        if (sec.area.height() <= 0)
            continue;
        work.push_back({si, nullptr});
        auto first = std::partition_point(sec.rows.begin(), sec.rows.end(), [&](const LayoutRow &r) {
            return r.y + r.height <= sec.scrollY;
        });
        if (first != sec.rows.end() && first->track >= 0 && first->depth > 0)
            work.push_back({si, &*first, true});
        for (auto it = first; it != sec.rows.end() && it->y < sec.scrollY + sec.area.height(); ++it) {
            if (!it->header())
                work.push_back({si, &*it});
            else if (it->kind == LayoutRow::Kind::GroupHeader && layout.groupCollapsed(it->group)) {
                for (int t : data.groups()[size_t(it->group)].tracks)
                    if (layout.trackPinned(t) == sec.pinned)
                        work.push_back({si, &*it, false, t});
            } else if (it->kind == LayoutRow::Kind::RankHeader && layout.fileCollapsed(it->file)) {
                // A collapsed rank: the busy time of its GPU tracks (of its
                // threads when it has none), wherever they are pinned.
                bool anyGpu = false;
                for (const TimelineGroup &g : data.groups())
                    if (int(g.file) == it->file)
                        for (int t : g.tracks)
                            anyGpu = anyGpu || data.tracks()[size_t(t)].gpu;
                for (const TimelineGroup &g : data.groups())
                    if (int(g.file) == it->file)
                        for (int t : g.tracks)
                            if (data.tracks()[size_t(t)].gpu == anyGpu)
                                work.push_back({si, &*it, false, t});
            }
        }
    }

    auto run = [&](const Task &task, TimelineGeometry &g) {
        const Section &sec = secs[task.sec];
        if (!task.row) {
            buildGaps(data, sec, map, g);
            return;
        }
        const LayoutRow &row = *task.row;
        if (task.busyTrack >= 0) {
            const auto &lv = data.tracks()[size_t(task.busyTrack)].levels;
            if (!lv.empty()) {
                RowBuilder rb{map, sec.area, g};
                rb.top = sec.top(row) + 3;
                rb.height = row.height - 6;
                buildLevel(data, task.busyTrack, lv[0], rb, foldNs, true);
            }
            return;
        }
        if (task.callsOnly) {
            buildSyncCalls(data, sec, map, row.track, g);
            return;
        }
        if (row.kind == LayoutRow::Kind::Counter) {
            buildCounter(data, sec, map, row, g);
            return;
        }
        RowBuilder rb{map, sec.area, g};
        rb.top = sec.top(row) + 1;
        rb.height = row.height - 2;
        const bool busy = row.kind == LayoutRow::Kind::Summary;
        // A collapsed thread: the union of its top-level events is its busy time.
        const auto &lv = busy ? data.tracks()[size_t(row.track)].levels : layout.levels(row.track);
        if (row.depth < int(lv.size()))
            buildLevel(data, row.track, lv[size_t(row.depth)], rb, foldNs, busy);
        if (row.depth == 0) {
            buildInstants(data, row.track, rb);
            buildSyncCalls(data, sec, map, row.track, g); // once per track, on its first row
        }
    };

    // Interleaved chunks balance the tasks' costs; each chunk fills its own
    // part per section, appended in chunk order afterwards.
    const int threads = std::min<int>(timelineGeometryThreads(), int(work.size() / 2));
    if (threads <= 1) {
        for (const Task &t : work)
            run(t, *sections[t.sec].out);
    } else {
        std::vector<std::vector<TimelineGeometry>> parts(static_cast<size_t>(threads));
        for (auto &p : parts)
            p.resize(secs.size());
        auto chunk = [&](int c) {
            for (size_t i = size_t(c); i < work.size(); i += size_t(threads))
                run(work[i], parts[size_t(c)][work[i].sec]);
        };
        std::vector<QFuture<void>> futures;
        for (int c = 1; c < threads; ++c)
            futures.push_back(QtConcurrent::run(&rowPool(), chunk, c));
        chunk(0);
        for (auto &f : futures)
            f.waitForFinished();
        for (auto &p : parts)
            for (size_t si = 0; si < secs.size(); ++si)
                sections[si].out->append(std::move(p[si]));
    }
    for (const GeometrySection &gs : sections)
        resolveLabels(data, gs.area, fm, names, *gs.out);
}

} // namespace syncscope::ui
