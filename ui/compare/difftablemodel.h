#pragma once
// One section of a comparison (sync sources, steps, ops or kernels) as a table:
// before, after and the change side by side. Times are shown and exported as
// exact microseconds from integer ns; Qt::UserRole holds the number to sort by
// (a missing side sorts as -infinity, so "absent" rows gather at one end).
#include "analysis/tracediff.h"
#include "shared/timeformat.h"

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncscope::ui {

struct CompareData;

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Section { Sources, Steps, Ops, Kernels };
    static constexpr int SortRole = Qt::UserRole;

    explicit DiffTableModel(Section section, QObject *parent = nullptr);

    void setData(std::shared_ptr<const CompareData> data);
    Section section() const { return m_section; }
    const std::shared_ptr<const CompareData> &compareData() const { return m_data; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The table in row order of `rows` (source rows; all when empty): CSV with a
    // header of the column keys, or a JSON array of objects keyed the same way,
    // null for a missing side, times as exact us numbers.
    std::string toCsv(const std::vector<int> &rows = {}) const;
    std::string toJson(const std::vector<int> &rows = {}) const;
    // The column keys ("avoidable_before_us", ...).
    std::vector<std::string> columnKeys() const;
    // A column of names (sync calls, ops, frames, steps, kernels): the one
    // that gives up width, eliding, so the figures beside it stay whole.
    bool isNameColumn(int column) const;

    // A cell: text, a count or a time; nullopt when the side lacks the entry.
    struct Cell {
        enum Kind { Text, Count, Time } kind = Text;
        std::optional<std::string> text;
        std::optional<int64_t> number;
        bool missing() const { return !text && !number; }
    };
    Cell cell(int row, int column) const;

private:
    struct Column {
        const char *key;
        const char *title;
    };
    const std::vector<Column> &columns() const;

    Section m_section;
    std::shared_ptr<const CompareData> m_data;
    std::vector<DurationColumn> m_timeColumns; // per column: one unit per figure (before, after, change)
};

} // namespace syncscope::ui
