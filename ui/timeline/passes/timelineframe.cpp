#include "timeline/passes/timelineframe.h"

#include "timeline/passes/boxes.h"

#include <QPainter>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <cmath>
#include <typeinfo>

namespace syncscope::ui {

std::pair<size_t, size_t> FrameSection::shownRows() const
{
    const auto &r = *rows;
    const auto first = std::partition_point(r.begin(), r.end(),
                                            [&](const LayoutRow &x) { return x.y + x.height <= scrollY; });
    auto last = first;
    while (last != r.end() && last->y < scrollY + area.height())
        ++last;
    return {size_t(first - r.begin()), size_t(last - r.begin())};
}

TimeNs FrameContext::foldNs() const { return std::max<TimeNs>(1, map.toDuration(kFoldPixels)); }

int FrameContext::x(TimeNs t) const { return plot.left() + int(std::floor(map.toPixelClamped(t))); }

QRect FrameContext::eventRect(const TimelineEvent &e) const
{
    if (!e.valid())
        return {};
    const TimelineLayout::Place place = layout.placeOf(e);
    if (place.row < 0)
        return {};
    const FrameSection &sec = section(place.pinned);
    if (size_t(place.row) >= sec.rows->size())
        return {};
    const LayoutRow &row = (*sec.rows)[size_t(place.row)];
    const int l = x(data.start(e)), r = x(data.end(e));
    return QRect(l, sec.top(row) + 1, std::max(1, r - l), row.height - 2);
}

namespace {

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
    // rest of the desktop (measured: no gain, see CHANGES.md); from four on,
    // the rows go wide.
    const int ideal = QThread::idealThreadCount();
    return ideal >= 4 ? ideal : 1;
}

TimelineFrame::TimelineFrame() { clear(); }

void TimelineFrame::clear()
{
    const auto &passes = timelinePasses();
    m_states.clear();
    m_states.resize(passes.size());
    for (size_t i = 0; i < passes.size(); ++i)
        for (auto &s : m_states[i])
            s = passes[i]->newState();
}

const PassState *TimelineFrame::find(const std::type_info *type, size_t slot) const
{
    for (const auto &s : m_states)
        if (typeid(*s[slot]) == *type)
            return s[slot].get();
    Q_ASSERT_X(false, "TimelineFrame", "no pass has this state type");
    return nullptr;
}

size_t TimelineFrame::drawn(bool pinned) const
{
    const auto &passes = timelinePasses();
    size_t n = 0;
    for (size_t i = 0; i < passes.size(); ++i)
        if (passes[i]->scope() == TimelinePass::Scope::Section)
            n += m_states[i][pinned ? 0 : 1]->drawn();
    return n;
}

void TimelineFrame::prepare(const FrameContext &ctx, TimelinePass::Update update, const QFontMetrics &fm,
                            NameCache &names)
{
    const auto &passes = timelinePasses();
    // The pieces: (pass, slot, work), in pass then section order.
    struct Piece {
        size_t pass, slot;
        PassWork work;
    };
    std::vector<Piece> work;
    std::vector<PassWork> planned;
    for (size_t i = 0; i < passes.size(); ++i) {
        const TimelinePass &pass = *passes[i];
        if (pass.update() != update)
            continue;
        for (auto &s : m_states[i])
            s = pass.newState();
        if (pass.scope() == TimelinePass::Scope::Plot) {
            planned.clear();
            pass.plan(ctx, nullptr, planned);
            for (const PassWork &w : planned)
                work.push_back({i, 0, w});
            continue;
        }
        for (size_t slot = 0; slot < 2; ++slot) {
            const FrameSection &sec = ctx.sections[slot];
            if (sec.area.height() <= 0)
                continue;
            planned.clear();
            pass.plan(ctx, &sec, planned);
            for (const PassWork &w : planned)
                work.push_back({i, slot, w});
        }
    }
    auto sectionOf = [&](const Piece &p) {
        return passes[p.pass]->scope() == TimelinePass::Scope::Plot ? nullptr : &ctx.sections[p.slot];
    };
    auto run = [&](const Piece &p, PassState &into) { passes[p.pass]->prepare(ctx, sectionOf(p), p.work, into); };

    // Interleaved chunks balance the pieces' costs; each chunk fills its own
    // states, appended in chunk order afterwards. The frame passes read the
    // view's marks: on the GUI thread only.
    const int threads = update == TimelinePass::Update::Cached
                            ? std::min<int>(timelineGeometryThreads(), int(work.size() / 2))
                            : 1;
    if (threads <= 1) {
        for (const Piece &p : work)
            run(p, *m_states[p.pass][p.slot]);
    } else {
        std::vector<std::vector<std::array<std::unique_ptr<PassState>, 2>>> parts(static_cast<size_t>(threads));
        for (auto &part : parts) {
            part.resize(passes.size());
            for (size_t i = 0; i < passes.size(); ++i)
                if (passes[i]->update() == update)
                    for (auto &s : part[i])
                        s = passes[i]->newState();
        }
        auto chunk = [&](int c) {
            for (size_t i = size_t(c); i < work.size(); i += size_t(threads))
                run(work[i], *parts[size_t(c)][work[i].pass][work[i].slot]);
        };
        std::vector<QFuture<void>> futures;
        for (int c = 1; c < threads; ++c)
            futures.push_back(QtConcurrent::run(&rowPool(), chunk, c));
        chunk(0);
        for (auto &f : futures)
            f.waitForFinished();
        for (auto &part : parts)
            for (size_t i = 0; i < passes.size(); ++i)
                if (passes[i]->update() == update)
                    for (size_t slot = 0; slot < 2; ++slot)
                        m_states[i][slot]->append(std::move(*part[i][slot]));
    }
    for (size_t i = 0; i < passes.size(); ++i) {
        const TimelinePass &pass = *passes[i];
        if (pass.update() != update)
            continue;
        if (pass.scope() == TimelinePass::Scope::Plot)
            pass.finish(ctx, nullptr, fm, names, *m_states[i][0]);
        else
            for (size_t slot = 0; slot < 2; ++slot)
                pass.finish(ctx, &ctx.sections[slot], fm, names, *m_states[i][slot]);
    }
}

void TimelineFrame::paintBackgrounds(QPainter &p, const FrameContext &ctx) const
{
    for (const FrameSection &sec : ctx.sections) {
        if (sec.area.isEmpty())
            continue;
        p.save();
        p.setClipRect(sec.area);
        for (const TimelinePass *pass : timelinePasses())
            pass->paintBackground(p, ctx, sec);
        p.restore();
    }
}

void TimelineFrame::paint(QPainter &p, const FrameContext &ctx, TimelinePass::Update update,
                          TimelinePass::Scope scope) const
{
    const auto &passes = timelinePasses();
    // The cached section passes in three layers: the rows' boxes, then their
    // labels, then what lies over the rows. Everything else in list order.
    enum Step { Boxes, Labels, Over };
    const bool layered = update == TimelinePass::Update::Cached && scope == TimelinePass::Scope::Section;
    for (const Step step : {Boxes, Labels, Over}) {
        if (!layered && step != Boxes)
            break;
        for (size_t i = 0; i < passes.size(); ++i) {
            const TimelinePass &pass = *passes[i];
            if (pass.update() != update || pass.scope() != scope)
                continue;
            if (layered && (pass.layer() == TimelinePass::Layer::OverRows) != (step == Over))
                continue;
            p.save();
            if (pass.scope() == TimelinePass::Scope::Plot) {
                p.setClipRect(ctx.plot);
                pass.paint(p, ctx, nullptr, *m_states[i][0]);
            } else {
                for (size_t slot : {size_t(1), size_t(0)}) { // the scrolled rows, then the pinned ones
                    const FrameSection &sec = ctx.sections[slot];
                    if (sec.area.isEmpty())
                        continue;
                    p.setClipRect(sec.area);
                    if (step == Labels)
                        pass.paintLabels(p, ctx, sec, *m_states[i][slot]);
                    else
                        pass.paint(p, ctx, &sec, *m_states[i][slot]);
                }
            }
            p.restore();
        }
    }
}

} // namespace syncscope::ui
