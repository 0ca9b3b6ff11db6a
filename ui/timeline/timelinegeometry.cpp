#include "timeline/timelinegeometry.h"

#include <algorithm>
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
    boxCount = foldedRuns = foldedEvents = 0;
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
    const QFontMetrics &fm;
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

    void label(const QRect &r, const QString &text, int textWidth, int color)
    {
        constexpr int kPad = 3;
        const int avail = r.width() - 2 * kPad;
        if (avail < 12 || text.isEmpty())
            return;
        TimelineGeometry::Label lab;
        lab.rect = QRect(r.left() + kPad, r.top(), avail, r.height());
        if (lab.rect.left() < plot.left() + kPad) { // keep names readable at the left edge
            lab.rect.setLeft(plot.left() + kPad);
            if (lab.rect.width() < 12)
                return;
        }
        const int room = lab.rect.width();
        if (textWidth <= room) {
            lab.text = text;
        } else {
            // Proportional cut instead of elidedText(): thousands of labels a frame.
            const int ell = fm.horizontalAdvance(QChar(0x2026));
            const int n = int(double(text.size()) * double(room - ell) / double(textWidth)) - 1;
            if (n < 2)
                return;
            lab.text = text.left(n) + QChar(0x2026);
        }
        lab.dark = palette::wantsDarkText(color);
        g.labels.push_back(std::move(lab));
    }
};

void buildLevel(const TimelineData &data, int trackIndex, int depth, RowBuilder &rb,
                NameCache &names, TimeNs foldNs)
{
    const TimelineTrack &tt = data.tracks()[size_t(trackIndex)];
    if (depth >= int(tt.levels.size()))
        return;
    const TimelineFile &file = data.files()[tt.file];
    const Track &mt = data.modelTrack(trackIndex);
    const TimelineLevel &lvl = tt.levels[size_t(depth)];
    const TimeNs t0 = rb.map.start(), t1 = rb.map.end();
    const size_t n = lvl.events.size();
    size_t pos = TimelineData::firstEndingAtOrAfter(mt, lvl, 0, t0);
    while (pos < n) {
        const uint32_t e = lvl.events[pos];
        const TimeNs s = mt.start[e];
        if (s > t1)
            break;
        if (mt.dur[e] >= foldNs) {
            const int color = file.catColor[mt.cat[e]];
            auto [l, r] = rb.columns(s, mt.end(e));
            const QRect rect = rb.add(color, l, r, true);
            if (rect.width() >= 16) {
                const NameCache::Entry &name = names.get(data, tt.file, mt.name[e], rb.fm);
                rb.label(rect, name.text, name.width, color);
            }
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
        if (next - pos == 1) {
            rb.add(file.catColor[mt.cat[e]], l, r, false);
        } else {
            const size_t w = TimelineData::widest(mt, lvl, pos, next);
            const int color = file.catColor[mt.cat[lvl.events[w]]];
            const QRect rect = rb.add(color + palette::kFoldedOffset, l, r, false);
            ++rb.g.foldedRuns;
            rb.g.foldedEvents += next - pos;
            if (rect.width() >= 60) {
                const QString text = QStringLiteral("%1 events").arg(next - pos);
                rb.label(rect, text, rb.fm.horizontalAdvance(text), color + palette::kFoldedOffset);
            }
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
        const int x = rb.plot.left() + int(std::floor(rb.map.toPixelClamped(*it)));
        rb.g.boxes[palette::kInstantColor].emplace_back(x - 1, rb.top, 3, 4);
        // One mark per two pixels is all the eye can tell apart.
        auto nextIt = std::lower_bound(it + 1, ts.end(), rb.map.toTime(x - rb.plot.left() + 2));
        it = nextIt;
    }
}

void buildGaps(const TimelineData &data, const TimeMapping &map, const QRect &plot, int scrollY,
               TimelineGeometry &g)
{
    const TimeNs t0 = map.start(), t1 = map.end();
    const int yMax = scrollY + plot.height();
    for (const TimelineFile &file : data.files()) {
        const auto &gaps = file.sync.syncGaps;
        for (const auto &dg : file.deviceGaps) {
            std::vector<std::pair<int, int>> ys;
            for (int ti : dg.tracks) {
                const TimelineTrack &tt = data.tracks()[size_t(ti)];
                const TimelineRow &first = data.rows()[size_t(tt.firstRow)];
                const TimelineRow &last = data.rows()[size_t(tt.firstRow + tt.rowCount - 1)];
                const int y0 = first.y, y1 = last.y + last.height;
                if (y1 > scrollY && y0 < yMax)
                    ys.emplace_back(plot.top() + y0 - scrollY, y1 - y0);
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

void buildSyncCalls(const TimelineData &data, const TimeMapping &map, const QRect &plot,
                    int scrollY, int trackIndex, TimelineGeometry &g)
{
    // Per track, one list per kind, so a pixel column is visited once: after a
    // mark, jump to the first call starting past it (a sync per step of a long
    // run is thousands of calls at full zoom-out).
    const TimelineTrack &tt = data.tracks()[size_t(trackIndex)];
    const TimelineFile &file = data.files()[tt.file];
    const auto &calls = file.sync.syncCalls;
    const Track &mt = data.modelTrack(trackIndex);
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
            const TimelineRow &r = data.rows()[size_t(tt.firstRow + mt.depth[c.event.index])];
            int l = plot.left() + int(std::floor(map.toPixelClamped(c.start)));
            int rr = plot.left() + int(std::floor(map.toPixelClamped(c.end())));
            if (rr - l < 3) { // keep a blocking call visible however short
                l -= 1;
                rr = l + 3;
            }
            if (r.y + r.height > scrollY && r.y < scrollY + plot.height())
                (kind ? g.gapCalls : g.otherCalls).emplace_back(l, plot.top() + r.y - scrollY, rr - l, r.height);
            it = std::lower_bound(it + 1, list.end(), map.toTime(rr - plot.left() + 1), byStart);
        }
    }
}

} // namespace

void buildTimelineGeometry(const TimelineData &data, const TimeMapping &map, const QRect &plot,
                           int scrollY, const QFontMetrics &fm, NameCache &names,
                           TimelineGeometry &out)
{
    out.clear();
    const TimeNs foldNs = std::max<TimeNs>(1, map.toDuration(kFoldPixels));
    const auto &rows = data.rows();
    auto it = std::partition_point(rows.begin(), rows.end(), [&](const TimelineRow &r) {
        return r.y + r.height <= scrollY;
    });
    RowBuilder rb{map, plot, out, fm};
    for (; it != rows.end() && it->y < scrollY + plot.height(); ++it) {
        if (it->track < 0)
            continue;
        rb.top = plot.top() + it->y - scrollY + 1;
        rb.height = it->height - 2;
        rb.lastColor = -1;
        rb.lastRight = INT32_MIN;
        buildLevel(data, it->track, it->depth, rb, names, foldNs);
        if (it->depth == 0)
            buildInstants(data, it->track, rb);
    }
    buildGaps(data, map, plot, scrollY, out);
    // Blocking calls of every track with a visible row.
    int lastTrack = -1;
    for (auto r = std::partition_point(rows.begin(), rows.end(),
                                       [&](const TimelineRow &row) { return row.y + row.height <= scrollY; });
         r != rows.end() && r->y < scrollY + plot.height(); ++r)
        if (r->track >= 0 && r->track != lastTrack) {
            lastTrack = r->track;
            buildSyncCalls(data, map, plot, scrollY, r->track, out);
        }
}

} // namespace syncscope::ui
