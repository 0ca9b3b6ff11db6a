#include "analysis/report.h"

#include "analysis/advice.h"
#include "analysis/timetext.h"

#include <algorithm>
#include <map>
#include <set>

namespace syncscope {

namespace {

// The content of a report, written once and rendered twice.
struct Span {
    std::string text;
    bool bold = false, code = false;
};
using Para = std::vector<Span>;

struct Cell {
    Cell(std::string t = {}, bool c = false, std::string a = {})
        : text(std::move(t)), code(c), anchor(std::move(a))
    {
    }
    std::string text;
    bool code = false;
    std::string anchor; // links to a block with this anchor (an advice rule)
};

struct Table {
    std::string id;
    std::vector<std::string> head;
    std::vector<bool> right; // numeric columns
    std::vector<std::vector<Cell>> rows;
};

struct Block {
    enum Kind { Paragraph, TableBlock, Chart, Rule } kind = Paragraph;
    Para para;
    Table table;
    std::string svg;           // Chart: a complete <svg> element, every text in it escaped
    std::string anchor, title; // Rule: its id and title
    std::vector<Para> lines;   // Rule: why, rewrite, PyTorch note
    std::string before, after; // Rule: code
};

struct Section {
    std::string id, title;
    std::vector<Block> blocks;
};

Block paragraph(Para p)
{
    Block b;
    b.kind = Block::Paragraph;
    b.para = std::move(p);
    return b;
}

std::string rankLabel(const FileReport &f, size_t index, bool several)
{
    if (!several)
        return "";
    return f.rank != kNoValue ? "rank " + std::to_string(f.rank) : "file " + std::to_string(index);
}

std::string gpuLabel(const FileReport &f, size_t index, bool several, int64_t device)
{
    const std::string r = rankLabel(f, index, several);
    return (r.empty() ? "" : r + " ") + "GPU " + std::to_string(device);
}

std::string baseName(const std::string &path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string sourceText(const std::string &sync, const std::optional<std::string> &op,
                       const std::optional<std::string> &frame)
{
    std::string s = sync;
    if (op)
        s += " in " + *op;
    if (frame)
        s += " at " + *frame;
    return s;
}

// A bar chart of two series per step, as inline SVG (no script, no font files).
std::string stepChart(const FileReport &f, int64_t device, const std::string &caption)
{
    struct Bar {
        std::string name;
        TimeNs gap = 0, avoidable = 0, busy = 0, dur = 0;
    };
    std::vector<Bar> bars;
    for (const StepDeviceStats &st : f.stepStats)
        if (st.device == device && st.step < f.steps.size()) {
            const ReportStep &s = f.steps[st.step];
            bars.push_back({s.name, st.syncGapTime, st.avoidable, st.gpuBusy, s.end - s.start});
        }
    if (bars.empty())
        return {};
    TimeNs top = 1;
    for (const Bar &b : bars)
        top = std::max({top, b.gap, b.avoidable});
    const int w = 900, h = 260, left = 70, bottom = 40, topPad = 24;
    const int plotW = w - left - 10, plotH = h - bottom - topPad;
    const double slot = double(plotW) / double(bars.size());
    const double barW = std::min(40.0, std::max(1.0, slot * 0.4));
    std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + std::to_string(w) +
                    "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " +
                    std::to_string(h) + "\" aria-label=\"" + htmlEscape(caption) + "\">";
    s += "<title>" + htmlEscape(caption) + "</title>";
    s += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(h) +
         "\" fill=\"#ffffff\"/>";
    // The axis: 0, half and the top, in ms.
    for (int k = 0; k <= 2; ++k) {
        const int y = topPad + plotH - plotH * k / 2;
        s += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(y) + "\" x2=\"" +
             std::to_string(w - 10) + "\" y2=\"" + std::to_string(y) + "\" stroke=\"#dddddd\"/>";
        s += "<text x=\"" + std::to_string(left - 6) + "\" y=\"" + std::to_string(y + 4) +
             "\" font-size=\"11\" text-anchor=\"end\" font-family=\"sans-serif\">" +
             htmlEscape(formatMillis(top * k / 2)) + "</text>";
    }
    for (size_t i = 0; i < bars.size(); ++i) {
        const Bar &b = bars[i];
        const double x = left + slot * double(i) + slot * 0.1;
        auto bar = [&](double x0, TimeNs v, const char *fill, const std::string &what) {
            const double bh = double(plotH) * double(v) / double(top);
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">", x0,
                          double(topPad + plotH) - bh, barW, bh, fill);
            s += buf;
            s += "<title>" + htmlEscape(b.name + ": " + what + " " + formatMillis(v)) + "</title></rect>";
        };
        bar(x, b.gap, "#e07a5f", "sync-gap time");
        bar(x + barW, b.avoidable, "#3d5a80", "avoidable");
    }
    // Legend.
    s += "<rect x=\"" + std::to_string(left) +
         "\" y=\"6\" width=\"10\" height=\"10\" fill=\"#e07a5f\"/>"
         "<text x=\"" +
         std::to_string(left + 14) +
         "\" y=\"15\" font-size=\"11\" font-family=\"sans-serif\">"
         "sync-gap time</text>";
    s += "<rect x=\"" + std::to_string(left + 110) +
         "\" y=\"6\" width=\"10\" height=\"10\" fill=\"#3d5a80\"/>"
         "<text x=\"" +
         std::to_string(left + 124) +
         "\" y=\"15\" font-size=\"11\" font-family=\"sans-serif\">"
         "avoidable (replay without the step's blocking calls)</text>";
    s += "<text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(h - 12) +
         "\" font-size=\"11\" font-family=\"sans-serif\">" +
         htmlEscape(std::to_string(bars.size()) + " steps: " + bars.front().name + " ... " + bars.back().name) +
         "</text>";
    s += "</svg>";
    return s;
}

// One row per item of every file, with the file it came from.
template <typename T> struct FileRow {
    size_t file;
    const T *s;
};
template <typename T>
std::vector<FileRow<T>> rowsOfEveryFile(const JobAnalysis &job, std::vector<T> FileReport::*member)
{
    std::vector<FileRow<T>> rows;
    for (size_t f = 0; f < job.files.size(); ++f)
        for (const T &item : job.files[f].*member)
            rows.push_back({f, &item});
    return rows;
}

// The device that host waits cost the most, and whether single sources explain it.
void costliestDevice(const JobAnalysis &job, bool several, std::vector<Block> &blocks)
{
    const FileReport *bf = nullptr;
    const ReportDevice *bd = nullptr;
    size_t bfi = 0;
    for (size_t f = 0; f < job.files.size(); ++f)
        for (const ReportDevice &d : job.files[f].devices)
            if (!bd || d.avoidable > bd->avoidable) {
                bd = &d;
                bf = &job.files[f];
                bfi = f;
            }
    if (!bd) {
        blocks.push_back(paragraph({{"No GPU activity in these traces: nothing to replay.", false, false}}));
    } else if (!bf->unevenCut.empty()) {
        // Cut inside its kinds of events: no figure of it is a finding.
        blocks.push_back(paragraph({{"Incomplete:", true, false},
                                    {" ", false, false},
                                    {baseName(bf->path), false, true},
                                    {": " + bf->unevenCut + ".", false, false}}));
    } else {
        blocks.push_back(
            paragraph({{gpuLabel(*bf, bfi, several, bd->device) + " would finish up to ", false, false},
                       {formatMillis(bd->avoidable), true, false},
                       {" earlier without host waits (" + formatPercent(bd->avoidable, bd->span()) +
                            " of its span; every blocking call removed in the sync-free replay, an upper bound).",
                        false, false}}));
        if (!bf->syncCalls.empty() && !bd->limitedBy.text.empty())
            blocks.push_back(paragraph({{"Limited by:", true, false},
                                        {" " + bd->limitedBy.text + ".", false, false}}));
        const size_t di = size_t(bd - bf->devices.data());
        TimeNs largest = 0;
        for (const ReportSource &s : bf->sources)
            if (di < s.avoidableByDevice.size())
                largest = std::max(largest, s.avoidableByDevice[di]);
        if (noSingleSourceExplains(largest, bd->avoidable))
            blocks.push_back(
                paragraph({{"No single source saves much: the largest saves " + formatMillis(largest) +
                                " there. The syncs re-synchronize each other; removing all " +
                                std::to_string(bf->syncCalls.size()) + " blocking calls together saves " +
                                formatMillis(bd->avoidable) + " (pick a set with analyze --what-if).",
                            false, false}}));
    }
}

// Every file's devices: span, busy, sync-gap and avoidable time, what limits the saving.
void devicesTable(const JobAnalysis &job, bool several, std::vector<Block> &blocks)
{
    Block t;
    t.kind = Block::TableBlock;
    t.table.id = "devices";
    t.table.head = {"Rank", "Trace", "Device", "Span", "GPU busy", "Sync-gap time", "Avoidable", "Limited by"};
    t.table.right = {false, false, true, true, true, true, true, false};
    for (size_t f = 0; f < job.files.size(); ++f)
        for (const ReportDevice &d : job.files[f].devices) {
            const bool cut = !job.files[f].unevenCut.empty();
            t.table.rows.push_back({{rankLabel(job.files[f], f, several)},
                                    {baseName(job.files[f].path), true},
                                    {"GPU " + std::to_string(d.device)},
                                    {formatMillis(d.span())},
                                    {cut ? std::string("incomplete")
                                         : formatMillis(d.busy) + " (" + formatPercent(d.busy, d.span()) + ")"},
                                    {cut ? std::string("incomplete") : formatMillis(d.syncGap)},
                                    {cut ? std::string("incomplete") : formatMillis(d.avoidable)},
                                    {cut ? std::string("the file was cut inside its events")
                                     : job.files[f].syncCalls.empty() ? std::string("no blocking call to remove")
                                                                      : d.limitedBy.text}});
        }
    if (!t.table.rows.empty())
        blocks.push_back(std::move(t));
}

// A sentence for each truncated file.
void truncatedFiles(const JobAnalysis &job, std::vector<Block> &blocks)
{
    for (const FileReport &f : job.files)
        if (f.truncated)
            blocks.push_back(paragraph({{baseName(f.path), false, true},
                                        {": " + truncationSentence(f) +
                                             (f.unevenCut.empty() ? "" : "; " + f.unevenCut) + ".",
                                         false, false}}));
}

// The ranks by what removing their own blocking calls saves the job.
void ranksTable(const JobAnalysis &job, std::vector<Block> &blocks)
{
    if (!job.hasJobScale || job.jobScale.rankRows.empty())
        return;
    Block r;
    r.kind = Block::TableBlock;
    r.table.id = "ranks";
    r.table.head = {"Rank", "Saves the job", "Saves its GPU alone", "Last to arrive", "Waited"};
    r.table.right = {false, true, true, true, true};
    std::vector<const JobRank *> rows;
    for (const JobRank &jr : job.jobScale.rankRows)
        rows.push_back(&jr);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const JobRank *a, const JobRank *b) { return a->jobAvoidable > b->jobAvoidable; });
    for (const JobRank *jr : rows)
        r.table.rows.push_back({{"rank " + std::to_string(jr->rank)},
                                {formatMillis(jr->jobAvoidable)},
                                {formatMillis(jr->localAvoidable)},
                                {std::to_string(jr->lastArrivals) + " collective(s)"},
                                {formatMillis(jr->wait)}});
    blocks.push_back(paragraph({{"Ranks by what removing their own blocking calls saves the job:", false,
                                 false}}));
    blocks.push_back(std::move(r));
}

// Headline: the files, what the job and the costliest device would save, the
// devices, truncated files and the ranks.
Section headlineSection(const ReportInput &in)
{
    const JobAnalysis &job = *in.job;
    const bool several = job.files.size() >= 2;
    Section sec{"headline", "Headline", {}};
    Para files{{std::to_string(job.files.size()) + " trace(s): ", false, false}};
    for (size_t f = 0; f < job.files.size(); ++f) {
        if (f)
            files.push_back({", ", false, false});
        files.push_back({baseName(job.files[f].path), false, true});
    }
    sec.blocks.push_back(paragraph(files));
    if (job.hasJobScale) {
        sec.blocks.push_back(paragraph({{"The job would finish up to ", false, false},
                                        {formatMillis(job.jobScale.avoidable), true, false},
                                        {" earlier without host waits (every blocking call of every rank "
                                         "removed, through the collectives; its span " +
                                             formatMillis(job.jobScale.span) + ", " +
                                             std::to_string(job.jobScale.ranks) + " ranks).",
                                         false, false}}));
    }
    costliestDevice(job, several, sec.blocks);
    devicesTable(job, several, sec.blocks);
    truncatedFiles(job, sec.blocks);
    ranksTable(job, sec.blocks);
    return sec;
}

// Per step: the file and device that host waits cost the most.
Section stepsSection(const ReportInput &in)
{
    const JobAnalysis &job = *in.job;
    const bool several = job.files.size() >= 2;
    Section sec{"steps", "Per step", {}};
    const FileReport *bf = nullptr;
    int64_t dev = 0;
    size_t bfi = 0;
    TimeNs best = -1;
    for (size_t f = 0; f < job.files.size(); ++f)
        for (const ReportDevice &d : job.files[f].devices)
            if (!job.files[f].steps.empty() && d.avoidable > best) {
                best = d.avoidable;
                bf = &job.files[f];
                dev = d.device;
                bfi = f;
            }
    if (!bf) {
        sec.blocks.push_back(paragraph(
            {{"No steps in these traces (ProfilerStep#N, or --step-regex): no per-step figures.", false, false}}));
    } else {
        const std::string caption = "Per step on " + gpuLabel(*bf, bfi, several, dev) +
                                    ": sync-gap time and avoidable time";
        Block c;
        c.kind = Block::Chart;
        c.svg = stepChart(*bf, dev, caption);
        c.title = caption;
        sec.blocks.push_back(std::move(c));
        Block t;
        t.kind = Block::TableBlock;
        t.table.id = "step-table";
        t.table.head = {"Step", "Duration", "GPU busy", "Sync gaps", "Sync-gap time", "Avoidable"};
        t.table.right = {false, true, true, true, true, true};
        for (const StepDeviceStats &st : bf->stepStats)
            if (st.device == dev && st.step < bf->steps.size()) {
                const ReportStep &s = bf->steps[st.step];
                t.table.rows.push_back({{s.name},
                                        {formatMillis(s.end - s.start)},
                                        {formatMillis(st.gpuBusy)},
                                        {std::to_string(st.syncGaps)},
                                        {formatMillis(st.syncGapTime)},
                                        {formatMillis(st.avoidable)}});
            }
        sec.blocks.push_back(std::move(t));
    }
    return sec;
}

// Sync sources and what to change: the top sources, then each advice rule they name.
Section sourcesSection(const ReportInput &in)
{
    const JobAnalysis &job = *in.job;
    const bool several = job.files.size() >= 2;
    std::vector<std::string> rulesShown;
    Section sec{"sources", "Sync sources and what to change", {}};
    using Row = FileRow<ReportSource>;
    std::vector<Row> rows = rowsOfEveryFile(job, &FileReport::sources);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row &a, const Row &b) { return a.s->avoidable > b.s->avoidable; });
    if (rows.size() > in.topSources)
        rows.resize(in.topSources);
    if (rows.empty()) {
        sec.blocks.push_back(paragraph({{"No blocking calls: nothing to change.", false, false}}));
    } else {
        sec.blocks.push_back(paragraph(
            {{"Blocking calls by (sync, op, user frame), by what removing all of them would save "
              "(summed over devices)" +
                  std::string(rows.size() == in.topSources ? ", the top " + std::to_string(in.topSources) : "") +
                  ".",
              false, false}}));
        Block t;
        t.kind = Block::TableBlock;
        t.table.id = "source-table";
        t.table.head = {"Avoidable", "Calls", "Gaps", "Gap time", "Source", "What to change"};
        t.table.right = {true, true, true, true, false, false};
        if (several) {
            t.table.head.insert(t.table.head.begin() + 4, "Rank");
            t.table.right.insert(t.table.right.begin() + 4, false);
        }
        const AdviceRules &rules = builtinAdviceRules();
        for (const Row &r : rows) {
            const ReportSource &s = *r.s;
            Cell advice{"no known rewrite"};
            const int at = s.advice.empty() ? -1 : rules.find(s.advice);
            if (at >= 0) {
                const AdviceRule &rule = rules.rules[size_t(at)];
                advice = {rule.title + (s.adviceCalls < s.count ? " (" + std::to_string(s.adviceCalls) + " of " +
                                                                      std::to_string(s.count) + " calls)"
                                                                : std::string()),
                          false, "advice-" + rule.id};
                if (std::find(rulesShown.begin(), rulesShown.end(), rule.id) == rulesShown.end())
                    rulesShown.push_back(rule.id);
            }
            std::vector<Cell> row = {{formatMillis(s.avoidable)},
                                     {std::to_string(s.count)},
                                     {std::to_string(s.gaps)},
                                     {formatMillis(s.gapTime)},
                                     {sourceText(s.sync, s.op, s.userFrame), true},
                                     advice};
            if (several)
                row.insert(row.begin() + 4, Cell{rankLabel(job.files[r.file], r.file, true)});
            t.table.rows.push_back(std::move(row));
        }
        sec.blocks.push_back(std::move(t));
        const std::string torch = job.files.empty() ? std::string() : job.files.front().torchVersion;
        for (const std::string &id : rulesShown) {
            const AdviceRule &rule = rules.rules[size_t(rules.find(id))];
            Block b;
            b.kind = Block::Rule;
            b.anchor = "advice-" + rule.id;
            b.title = rule.title + " [" + rule.id + ", " + std::string(adviceClassName(rule.cls)) + "]";
            b.lines.push_back({{rule.why, false, false}});
            b.lines.push_back({{rule.rewrite, false, false}});
            if (!rule.minTorch.empty())
                b.lines.push_back({{torchNeedSentence(rule, torch) + ".", torchOlderThan(torch, rule.minTorch),
                                    false}});
            std::string refs = "References: ";
            for (size_t k = 0; k < rule.refs.size(); ++k)
                refs += (k ? ", " : "") + rule.refs[k];
            b.lines.push_back({{refs, false, false}});
            b.before = rule.before;
            b.after = rule.after;
            sec.blocks.push_back(std::move(b));
        }
    }
    return sec;
}

// The top gaps.
Section gapsSection(const ReportInput &in)
{
    const JobAnalysis &job = *in.job;
    const bool several = job.files.size() >= 2;
    Section sec{"gaps", "Top sync gaps", {}};
    using Row = FileRow<SyncGap>;
    std::vector<Row> rows = rowsOfEveryFile(job, &FileReport::syncGaps);
    std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
        if (a.s->avoidable != b.s->avoidable)
            return a.s->avoidable > b.s->avoidable;
        return a.s->interval.length() > b.s->interval.length();
    });
    if (rows.size() > in.topGaps)
        rows.resize(in.topGaps);
    if (rows.empty()) {
        sec.blocks.push_back(paragraph({{"No sync gaps: the GPU was never idle while the host blocked.", false,
                                         false}}));
    } else {
        Block t;
        t.kind = Block::TableBlock;
        t.table.id = "gap-table";
        t.table.head = {"Avoidable", "Gap", "Host blocked", "At", "Device", "Blocking call", "Step"};
        t.table.right = {true, true, true, true, false, false, false};
        for (const Row &r : rows) {
            const FileReport &f = job.files[r.file];
            const SyncGap &g = *r.s;
            const ReportSyncCall &c = f.syncCalls[g.syncCall];
            t.table.rows.push_back({{formatMillis(g.avoidable)},
                                    {formatMillis(g.interval.length())},
                                    {formatMillis(g.blocked)},
                                    {formatMillis(g.interval.start - f.minTime)},
                                    {gpuLabel(f, r.file, several, g.device)},
                                    {sourceText(c.name, c.op, c.userFrame), true},
                                    {g.step >= 0 ? f.steps[size_t(g.step)].name : std::string()}});
        }
        sec.blocks.push_back(paragraph({{"By what removing the gap's cause alone would save; \"At\" is from "
                                         "the start of its trace.",
                                         false, false}}));
        sec.blocks.push_back(std::move(t));
    }
    return sec;
}

// Before and after (a report with a compared pair).
Section compareSection(const ReportInput &in)
{
    const TraceDiff &d = *in.compare;
    Section sec{"compare", "Before and after", {}};
    sec.blocks.push_back(paragraph({{"Before: ", false, false},
                                    {baseName(d.before.path), false, true},
                                    {"; after: ", false, false},
                                    {baseName(d.after.path), false, true},
                                    {". Deltas are after - before.", false, false}}));
    auto fig = [](const std::optional<TimeNs> &v) { return v ? formatMillis(*v) : std::string("-"); };
    auto delta = [](const std::optional<TimeNs> &a, const std::optional<TimeNs> &b) {
        return formatMillis(b.value_or(0) - a.value_or(0), true);
    };
    Block dev;
    dev.kind = Block::TableBlock;
    dev.table.id = "compare-devices";
    dev.table.head = {"Device", "Avoidable before", "after", "delta", "Sync-gap time before", "after", "delta"};
    dev.table.right = {false, true, true, true, true, true, true};
    for (const DeviceDiff &x : d.devices) {
        const std::optional<TimeNs> ab = x.before ? std::optional<TimeNs>(x.before->avoidable) : std::nullopt;
        const std::optional<TimeNs> aa = x.after ? std::optional<TimeNs>(x.after->avoidable) : std::nullopt;
        const std::optional<TimeNs> gb = x.before ? std::optional<TimeNs>(x.before->syncGap) : std::nullopt;
        const std::optional<TimeNs> ga = x.after ? std::optional<TimeNs>(x.after->syncGap) : std::nullopt;
        dev.table.rows.push_back({{"GPU " + std::to_string(x.device)},
                                  {fig(ab)},
                                  {fig(aa)},
                                  {delta(ab, aa)},
                                  {fig(gb)},
                                  {fig(ga)},
                                  {delta(gb, ga)}});
    }
    sec.blocks.push_back(std::move(dev));
    if (d.stepTimeBefore.count || d.stepTimeAfter.count) {
        auto st = [](const StepTime &t) {
            return t.count ? formatMillis(t.median) + " (p5 " + formatMillis(t.p5) + ", p95 " +
                                 formatMillis(t.p95) + ", " + std::to_string(t.count) + " steps)"
                           : std::string("no steps");
        };
        sec.blocks.push_back(paragraph({{"Median step time: before " + st(d.stepTimeBefore) + ", after " +
                                             st(d.stepTimeAfter) + ".",
                                         false, false}}));
    }
    Block src;
    src.kind = Block::TableBlock;
    src.table.id = "compare-sources";
    src.table.head = {"Source", "Calls before", "after", "Avoidable before", "after", "delta"};
    src.table.right = {false, true, true, true, true, true};
    size_t n = 0;
    for (const SourceDiff &s : d.sources) {
        if (n++ >= in.topSources)
            break;
        const std::optional<TimeNs> ab = s.before ? std::optional<TimeNs>(s.before->avoidable) : std::nullopt;
        const std::optional<TimeNs> aa = s.after ? std::optional<TimeNs>(s.after->avoidable) : std::nullopt;
        src.table.rows.push_back({{sourceText(s.sync, s.op, s.userFrame), true},
                                  {s.before ? std::to_string(s.before->count) : "-"},
                                  {s.after ? std::to_string(s.after->count) : "-"},
                                  {fig(ab)},
                                  {fig(aa)},
                                  {delta(ab, aa)}});
    }
    if (!src.table.rows.empty())
        sec.blocks.push_back(std::move(src));
    return sec;
}
std::vector<Section> content(const ReportInput &in)
{
    std::vector<Section> out;
    out.push_back(headlineSection(in));
    out.push_back(stepsSection(in));
    out.push_back(sourcesSection(in));
    out.push_back(gapsSection(in));
    if (in.compare)
        out.push_back(compareSection(in));
    return out;
}

// HTML.
std::string htmlSpans(const Para &p)
{
    std::string s;
    for (const Span &x : p) {
        std::string t = htmlEscape(x.text);
        if (x.code)
            t = "<code>" + t + "</code>";
        if (x.bold)
            t = "<b>" + t + "</b>";
        s += t;
    }
    return s;
}

std::string htmlTable(const Table &t)
{
    std::string s = "<table id=\"" + htmlEscape(t.id) + "\"><thead><tr>";
    for (size_t c = 0; c < t.head.size(); ++c)
        s += std::string("<th") + (t.right[c] ? " class=\"num\"" : "") + ">" + htmlEscape(t.head[c]) + "</th>";
    s += "</tr></thead><tbody>";
    for (const std::vector<Cell> &row : t.rows) {
        s += "<tr>";
        for (size_t c = 0; c < row.size(); ++c) {
            std::string v = htmlEscape(row[c].text);
            if (row[c].code)
                v = "<code>" + v + "</code>";
            if (!row[c].anchor.empty())
                v = "<a href=\"#" + htmlEscape(row[c].anchor) + "\">" + v + "</a>";
            s += std::string("<td") + (c < t.right.size() && t.right[c] ? " class=\"num\"" : "") + ">" + v +
                 "</td>";
        }
        s += "</tr>";
    }
    return s + "</tbody></table>\n";
}

// Markdown.
std::string mdSpans(const Para &p)
{
    std::string s;
    for (const Span &x : p) {
        std::string t = markdownEscape(x.text);
        if (x.bold)
            t = "**" + t + "**";
        s += t;
    }
    return s;
}

std::string mdTable(const Table &t)
{
    std::string s = "|";
    for (const std::string &h : t.head)
        s += " " + markdownEscape(h) + " |";
    s += "\n|";
    for (size_t c = 0; c < t.head.size(); ++c)
        s += c < t.right.size() && t.right[c] ? "---:|" : "---|";
    s += "\n";
    for (const std::vector<Cell> &row : t.rows) {
        s += "|";
        for (const Cell &c : row)
            s += " " + markdownEscape(c.text) + " |";
        s += "\n";
    }
    return s + "\n";
}

// A fenced code block whose fence the code cannot close.
std::string mdFence(const std::string &code)
{
    std::string fence = "```";
    while (code.find(fence) != std::string::npos)
        fence += '`';
    return fence + "python\n" + code + "\n" + fence + "\n";
}

} // namespace

std::string htmlEscape(std::string_view text)
{
    std::string s;
    s.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': s += "&amp;"; break;
        case '<': s += "&lt;"; break;
        case '>': s += "&gt;"; break;
        case '"': s += "&quot;"; break;
        case '\'': s += "&#39;"; break;
        default: s += c;
        }
    }
    return s;
}

std::string markdownEscape(std::string_view text)
{
    std::string s;
    s.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': s += "&amp;"; break;
        case '<': s += "&lt;"; break;
        case '>': s += "&gt;"; break;
        case '\n':
        case '\r': s += ' '; break;
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
        case '|':
        case '#':
        case '!':
        case '~':
            s += '\\';
            s += c;
            break;
        default: s += c;
        }
    }
    return s;
}

std::string reportHtml(const ReportInput &in)
{
    const std::vector<Section> secs = content(in);
    std::string title = "syncscope report";
    if (in.job && !in.job->files.empty())
        title += ": " + baseName(in.job->files.front().path) +
                 (in.job->files.size() > 1 ? " and " + std::to_string(in.job->files.size() - 1) + " more" : "");
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'; img-src data:\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
                    htmlEscape(title) +
                    "</title>\n<style>\n"
                    "body{font-family:sans-serif;margin:2em;max-width:1200px;color:#222}\n"
                    "table{border-collapse:collapse;margin:0.5em 0 1em 0;font-size:0.9em}\n"
                    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top;"
                    "max-width:520px;overflow-wrap:anywhere}\n"
                    "th{background:#f2f2f2}\n.num{text-align:right;white-space:nowrap}\n"
                    "pre{background:#f6f8fa;padding:8px;overflow-x:auto}\n"
                    ".rule{border-left:4px solid #3d5a80;padding-left:12px;margin:1em 0}\n"
                    "footer{color:#777;font-size:0.85em;margin-top:3em}\n</style></head><body>\n";
    s += "<h1>" + htmlEscape(title) + "</h1>\n";
    for (const Section &sec : secs) {
        s += "<section id=\"" + htmlEscape(sec.id) + "\"><h2>" + htmlEscape(sec.title) + "</h2>\n";
        for (const Block &b : sec.blocks) {
            switch (b.kind) {
            case Block::Paragraph: s += "<p>" + htmlSpans(b.para) + "</p>\n"; break;
            case Block::TableBlock:
                if (b.table.id == "step-table")
                    s += "<details><summary>The steps as a table</summary>" + htmlTable(b.table) + "</details>\n";
                else
                    s += htmlTable(b.table);
                break;
            case Block::Chart:
                s += "<figure>" + b.svg + "<figcaption>" + htmlEscape(b.title) + "</figcaption></figure>\n";
                break;
            case Block::Rule:
                s += "<div class=\"rule\" id=\"" + htmlEscape(b.anchor) + "\"><h3>" + htmlEscape(b.title) +
                     "</h3>\n";
                for (const Para &p : b.lines)
                    s += "<p>" + htmlSpans(p) + "</p>\n";
                s += "<p>Before:</p><pre><code>" + htmlEscape(b.before) + "</code></pre>\n";
                s += "<p>After:</p><pre><code>" + htmlEscape(b.after) + "</code></pre></div>\n";
                break;
            }
        }
        s += "</section>\n";
    }
    s += "<footer>Made by " + htmlEscape(in.generator) +
         ". Times are from the traces' integer nanoseconds, in ms rounded to the microsecond. "
         "Avoidable: how much earlier the GPU's last activity would end in a sync-free replay without "
         "those blocking calls.</footer>\n</body></html>\n";
    return s;
}

std::string reportMarkdown(const ReportInput &in)
{
    const std::vector<Section> secs = content(in);
    std::string s = "# syncscope report\n\n";
    for (const Section &sec : secs) {
        s += "## " + markdownEscape(sec.title) + "\n\n";
        for (const Block &b : sec.blocks) {
            switch (b.kind) {
            case Block::Paragraph: s += mdSpans(b.para) + "\n\n"; break;
            case Block::TableBlock: s += mdTable(b.table); break;
            case Block::Chart: break; // the table of the same figures follows
            case Block::Rule:
                s += "### " + markdownEscape(b.title) + "\n\n";
                for (const Para &p : b.lines)
                    s += mdSpans(p) + "\n\n";
                s += "Before:\n\n" + mdFence(b.before) + "\nAfter:\n\n" + mdFence(b.after) + "\n";
                break;
            }
        }
    }
    s += "---\n" + markdownEscape("Made by " + in.generator + ".") + "\n";
    return s;
}

} // namespace syncscope
