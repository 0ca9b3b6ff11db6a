#include "job/jobtablemodels.h"

#include "analysis/jsonwriter.h"
#include "shared/timeformat.h"
#include "common/csv.h"

namespace syncscope::ui {

namespace {

const QString kNone = QStringLiteral("—");

// Both the integer ns and the exact µs of a time, as CSV fields.
void csvTime(csv::Row &r, TimeNs ns)
{
    r.raw(std::to_string(ns));
    r.raw(formatMicros(ns));
}

void jsonTime(JsonWriter &w, const std::string &key, TimeNs ns)
{
    w.key(key + "_ns").value(int64_t(ns));
    w.key(key + "_us").micros(ns);
}

QVariant rightAligned() { return int(Qt::AlignRight | Qt::AlignVCenter); }

} // namespace

// ---- ranks -----------------------------------------------------------------

JobRankModel::JobRankModel(QObject *parent) : QAbstractTableModel(parent) {}

void JobRankModel::setJob(std::shared_ptr<const JobScale> job)
{
    beginResetModel();
    m_job = std::move(job);
    for (DurationColumn *c : {&m_jobAvoidable, &m_localAvoidable, &m_wait, &m_offset})
        c->clear();
    if (m_job)
        for (const JobRank &r : m_job->rankRows) {
            m_jobAvoidable.add(r.jobAvoidable);
            m_localAvoidable.add(r.localAvoidable);
            m_wait.add(r.wait);
            if (r.hasClockOffset)
                for (TimeNs t : {r.clockOffset, r.clockOffsetP5, r.clockOffsetP95})
                    m_offset.add(t);
        }
    endResetModel();
}

int JobRankModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_job ? 0 : int(m_job->rankRows.size());
}

int JobRankModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant JobRankModel::data(const QModelIndex &index, int role) const
{
    if (!m_job || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const JobRank &r = rank(index.row());
    const int col = index.column();
    if (role == Qt::TextAlignmentRole)
        return col == File ? QVariant() : rightAligned();
    if (role == SortRole) {
        switch (col) {
        case Rank: return qlonglong(r.rank);
        case JobAvoidable: return qlonglong(r.jobAvoidable);
        case LocalAvoidable: return qlonglong(r.localAvoidable);
        case LastArrivals: return qulonglong(r.lastArrivals);
        case Wait: return qlonglong(r.wait);
        case ClockOffset: return r.hasClockOffset ? qlonglong(r.clockOffset) : QVariant();
        case ClockSpread: return r.hasClockOffset ? qlonglong(r.clockOffsetP95 - r.clockOffsetP5) : QVariant();
        case Device: return r.device == kNoValue ? QVariant() : qlonglong(r.device);
        default: role = Qt::DisplayRole; break;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (col) {
        case JobAvoidable:
            return tr("The job would end %1 (%2 ns) earlier without this rank's blocking calls, "
                      "the other ranks "
                      "kept as they are")
                .arg(formatDuration(r.jobAvoidable))
                .arg(r.jobAvoidable);
        case LocalAvoidable:
            return tr("Device %1 of this rank alone would finish %2 earlier without its blocking "
                      "calls (the "
                      "single-rank figure of the Timeline)")
                .arg(r.device == kNoValue ? kNone : QString::number(r.device), formatDuration(r.localAvoidable));
        case ClockOffset:
        case ClockSpread:
            if (!r.hasClockOffset)
                return tr("No matched collective: this rank's clock cannot be aligned with the job's");
            return tr("This rank's clock minus the first rank's: median %1, p5 %2, p95 %3 over the "
                      "collectives")
                .arg(formatDuration(r.clockOffset), formatDuration(r.clockOffsetP5),
                     formatDuration(r.clockOffsetP95));
        case File: return QString::fromStdString(r.file);
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (col) {
    case Rank: return QString::number(r.rank);
    case JobAvoidable: return m_jobAvoidable.format(r.jobAvoidable);
    case LocalAvoidable: return m_localAvoidable.format(r.localAvoidable);
    case LastArrivals: return QString::number(r.lastArrivals);
    case Wait: return m_wait.format(r.wait);
    case ClockOffset: return r.hasClockOffset ? m_offset.format(r.clockOffset) : kNone;
    case ClockSpread: // the offsets' unit, so the spread reads against them
        return r.hasClockOffset ? QStringLiteral("%1 … %2").arg(m_offset.format(r.clockOffsetP5),
                                                                m_offset.format(r.clockOffsetP95))
                                : kNone;
    case Device: return r.device == kNoValue ? kNone : QString::number(r.device);
    case File: {
        const QString f = QString::fromStdString(r.file);
        return f.section(QLatin1Char('/'), -1);
    }
    default: return {};
    }
}

QVariant JobRankModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case JobAvoidable:
            return tr("How much earlier the job ends when only this rank's blocking calls are removed");
        case LocalAvoidable:
            return tr("The single-rank figure: this rank's device alone, replayed without its "
                      "blocking calls");
        case LastArrivals: return tr("How many collectives this rank was the last to reach");
        case Wait:
            return tr("How long this rank waited in collectives for the last rank (the sum over "
                      "collectives)");
        case ClockOffset:
            return tr("This rank's clock minus the first rank's, the median over the collectives' ends");
        case ClockSpread: return tr("The 5th and 95th percentiles of the clock offset over the collectives");
        case Device: return tr("The device this rank's collectives run on");
        default: break;
        }
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const names[] = {"Rank", "Job avoidable", "Local avoidable", "Last arrivals",
                                        "Wait", "Clock offset",  "Offset p5 … p95", "Device",
                                        "File"};
    return tr(names[section]);
}

std::string JobRankModel::toCsv(const std::vector<int> &rows) const
{
    std::string out = "rank,file,device,clock_offset_ns,clock_offset_us,clock_offset_p5_ns,clock_offset_p5_us,"
                      "clock_offset_p95_ns,clock_offset_p95_us,local_avoidable_ns,local_avoidable_us,"
                      "job_avoidable_ns,job_avoidable_us,last_arrivals,wait_ns,wait_us\n";
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const JobRank &r = rank(row);
        csv::Row c(out);
        c.raw(std::to_string(r.rank));
        c.text(r.file);
        c.raw(r.device == kNoValue ? std::string() : std::to_string(r.device));
        for (TimeNs t : {r.clockOffset, r.clockOffsetP5, r.clockOffsetP95}) {
            if (r.hasClockOffset) {
                csvTime(c, t);
            } else {
                c.raw("");
                c.raw("");
            }
        }
        csvTime(c, r.localAvoidable);
        csvTime(c, r.jobAvoidable);
        c.raw(std::to_string(r.lastArrivals));
        csvTime(c, r.wait);
        c.end();
    }
    return out;
}

std::string JobRankModel::toJson(const std::vector<int> &rows) const
{
    JsonWriter w;
    w.beginObject();
    w.key("ranks").beginArray();
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const JobRank &r = rank(row);
        w.beginObject();
        w.key("rank").value(int64_t(r.rank));
        w.key("file").value(r.file);
        w.key("device").optional(r.device);
        if (r.hasClockOffset) {
            jsonTime(w, "clock_offset", r.clockOffset);
            jsonTime(w, "clock_offset_p5", r.clockOffsetP5);
            jsonTime(w, "clock_offset_p95", r.clockOffsetP95);
        } else {
            for (const char *k : {"clock_offset", "clock_offset_p5", "clock_offset_p95"}) {
                w.key(std::string(k) + "_ns").null();
                w.key(std::string(k) + "_us").null();
            }
        }
        jsonTime(w, "local_avoidable", r.localAvoidable);
        jsonTime(w, "job_avoidable", r.jobAvoidable);
        w.key("last_arrivals").value(uint64_t(r.lastArrivals));
        jsonTime(w, "wait", r.wait);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.take();
}

// ---- collectives' blame ----------------------------------------------------

CollectiveBlameModel::CollectiveBlameModel(QObject *parent) : QAbstractTableModel(parent) {}

void CollectiveBlameModel::setJob(std::shared_ptr<const JobScale> job)
{
    beginResetModel();
    m_job = std::move(job);
    m_lateness.clear();
    m_saves.clear();
    if (m_job)
        for (const CollectiveBlame &b : m_job->blame) {
            m_lateness.add(b.lateness);
            if (b.hasCause)
                m_saves.add(b.saves);
        }
    endResetModel();
}

QString CollectiveBlameModel::causeText(const CollectiveBlame &b)
{
    if (!b.hasCause)
        return {};
    QString s = QString::fromStdString(b.cause.sync);
    if (b.cause.hasOp)
        s += tr(" in %1").arg(QString::fromStdString(b.cause.op));
    if (b.cause.hasUserFrame)
        s += tr(" at %1").arg(QString::fromStdString(b.cause.userFrame));
    return s;
}

int CollectiveBlameModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_job ? 0 : int(m_job->blame.size());
}

int CollectiveBlameModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectiveBlameModel::data(const QModelIndex &index, int role) const
{
    if (!m_job || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CollectiveBlame &b = blame(index.row());
    const int col = index.column();
    if (role == Qt::TextAlignmentRole)
        return col == Lateness || col == LastRank || col == Saves || col == Seq ? rightAligned() : QVariant();
    if (role == SortRole) {
        switch (col) {
        case Lateness: return qlonglong(b.lateness);
        case LastRank: return qlonglong(b.lastRank);
        case Saves: return b.hasCause ? qlonglong(b.saves) : qlonglong(-1);
        case Seq: return qulonglong(b.seq);
        default: role = Qt::DisplayRole; break;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (col) {
        case Lateness:
            return tr("Rank %1 reached this collective %2 (%3 ns) after the second-last rank")
                .arg(b.lastRank)
                .arg(formatDuration(b.lateness))
                .arg(b.lateness);
        case Cause:
        case Saves:
            if (!b.hasCause)
                return tr("No blocking call of rank %1 moves this collective earlier").arg(b.lastRank);
            return tr("Without this source alone on rank %1, the collective would end %2 earlier")
                .arg(b.lastRank)
                .arg(formatDuration(b.saves));
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (col) {
    case Lateness: return m_lateness.format(b.lateness);
    case LastRank: return QString::number(b.lastRank);
    case Cause: return b.hasCause ? causeText(b) : kNone;
    case Saves: return b.hasCause ? m_saves.format(b.saves) : kNone;
    case Group: return QString::fromStdString(b.group);
    case Seq: return QString::number(b.seq);
    case Name: return QString::fromStdString(b.name);
    default: return {};
    }
}

QVariant CollectiveBlameModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Lateness: return tr("The last rank's arrival at the collective minus the second-last's");
        case LastRank: return tr("The rank that reached the collective last");
        case Cause:
            return tr("The sync source on the last rank whose removal alone moves the collective "
                      "earliest");
        case Saves: return tr("How much earlier the collective ends without that source alone");
        case Group: return tr("The process group (else the stream) the collective ran in");
        case Seq: return tr("The collective's order within its group");
        default: break;
        }
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const names[] = {"Lateness", "Last rank", "Cause", "Saves", "Group", "Seq", "Kernel"};
    return tr(names[section]);
}

std::string CollectiveBlameModel::toCsv(const std::vector<int> &rows) const
{
    std::string out = "group,seq,name,last_rank,lateness_ns,lateness_us,cause_sync,cause_op,cause_user_frame,"
                      "saves_ns,saves_us\n";
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const CollectiveBlame &b = blame(row);
        csv::Row c(out);
        c.text(b.group);
        c.raw(std::to_string(b.seq));
        c.text(b.name);
        c.raw(std::to_string(b.lastRank));
        csvTime(c, b.lateness);
        if (b.hasCause) {
            c.text(b.cause.sync);
            c.text(b.cause.hasOp ? b.cause.op : std::string());
            c.text(b.cause.hasUserFrame ? b.cause.userFrame : std::string());
            csvTime(c, b.saves);
        } else {
            for (int i = 0; i < 5; ++i)
                c.raw("");
        }
        c.end();
    }
    return out;
}

std::string CollectiveBlameModel::toJson(const std::vector<int> &rows) const
{
    JsonWriter w;
    w.beginObject();
    w.key("collective_blame").beginArray();
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const CollectiveBlame &b = blame(row);
        w.beginObject();
        w.key("group").value(b.group);
        w.key("seq").value(uint64_t(b.seq));
        w.key("name").value(b.name);
        w.key("last_rank").value(int64_t(b.lastRank));
        jsonTime(w, "lateness", b.lateness);
        w.key("cause");
        if (!b.hasCause) {
            w.null();
        } else {
            w.beginObject();
            w.key("sync").value(b.cause.sync);
            w.key("op");
            b.cause.hasOp ? w.value(b.cause.op) : w.null();
            w.key("user_frame");
            b.cause.hasUserFrame ? w.value(b.cause.userFrame) : w.null();
            jsonTime(w, "saves", b.saves);
            w.endObject();
        }
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.take();
}

} // namespace syncscope::ui
