#include "timeline/passes/boxes.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

QString labelText(std::string_view s)
{
    if (s.size() <= kMaxLabelBytes)
        return QString::fromUtf8(s.data(), int(s.size()));
    size_t n = kMaxLabelBytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n; // s[n] starts a character: keep [0, n)
    return QString::fromUtf8(s.data(), int(n)) + QChar(0x2026);
}

const NameCache::Entry &NameCache::get(const TimelineData &data, uint32_t file, StrId id, const QFontMetrics &fm)
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

void BoxBatches::append(BoxBatches &&part)
{
    for (size_t c = 0; c < byColor.size(); ++c)
        appendAll(byColor[c], part.byColor[c]);
    count += part.count;
    foldedRuns += part.foldedRuns;
    foldedEvents += part.foldedEvents;
}

void BoxBatches::paint(QPainter &p) const
{
    p.setPen(Qt::NoPen);
    for (int c = 0; c < palette::kColorCount; ++c) {
        const auto &batch = byColor[size_t(c)];
        if (batch.empty())
            continue;
        p.setBrush(palette::color(c));
        p.drawRects(batch.data(), int(batch.size()));
    }
}

std::pair<int, int> RowBuilder::columns(TimeNs s, TimeNs e) const
{
    const int l = plot.left() + int(std::floor(map.toPixelClamped(s)));
    int r = plot.left() + int(std::floor(map.toPixelClamped(e)));
    return {std::max(l, plot.left() - 2), std::min(std::max(r, l + 1), plot.right() + 2)};
}

QRect RowBuilder::add(int color, int l, int r, bool gapAfter)
{
    int w = std::max(1, r - l);
    if (gapAfter && w >= 5)
        w -= 1; // a hairline between neighbouring boxes
    auto &batch = boxes.byColor[size_t(color)];
    // Two events in the same pixel column with the same colour: one rect.
    if (color == lastColor && l <= lastRight && !batch.empty()) {
        QRect &prev = batch[lastIndex];
        const int oldRight = prev.right();
        prev.setRight(std::max(oldRight, l + w - 1));
        lastRight = prev.right() + 1;
        // Its own part: the columns right of what the box covered before.
        const int from = std::max(l, oldRight + 1);
        return prev.right() >= from ? QRect(from, top, prev.right() - from + 1, height) : QRect();
    }
    batch.emplace_back(l, top, w, height);
    lastColor = color;
    lastIndex = batch.size() - 1;
    lastRight = l + w;
    ++boxes.count;
    return batch.back();
}

void RowBuilder::label(const QRect &r, uint32_t file, StrId name, uint32_t count, int color)
{
    if (!pending || r.width() - 6 < 12)
        return;
    pending->push_back({r, file, name, count, color});
}

void resolveLabels(const TimelineData &data, const QRect &plot, const QFontMetrics &fm, NameCache &names,
                   std::vector<PendingLabel> &pending, std::vector<BoxLabel> &out)
{
    constexpr int kPad = 3;
    const int ell = fm.horizontalAdvance(QChar(0x2026));
    out.reserve(out.size() + pending.size());
    for (const PendingLabel &pl : pending) {
        BoxLabel lab;
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
        out.push_back(std::move(lab));
    }
    pending.clear();
}

void buildLevel(const TimelineData &data, int trackIndex, const TimelineLevel &lvl, RowBuilder &rb, TimeNs foldNs,
                bool busy)
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
            ++rb.boxes.foldedRuns;
            rb.boxes.foldedEvents += next - pos;
            if (rect.width() >= 60)
                rb.label(rect, tt.file, kNoStr, uint32_t(next - pos), color + palette::kFoldedOffset);
        }
        pos = next;
    }
}

} // namespace syncscope::ui
