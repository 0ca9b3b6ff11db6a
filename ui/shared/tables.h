#pragma once
// The table every page shows its rows in: whole rows selected, one at a time;
// sorted by a click on a header; alternating rows, no row numbers, each row
// one line of text; columns the user sizes, the last one stretched; a context
// menu of the page's own (customContextMenuRequested).
#include <Qt>

class QAbstractItemModel;
class QString;
class QTableView;
class QWidget;

namespace syncscope::ui {

// `elide`: where text too long for its cell loses its letters (Qt::ElideMiddle
// for names whose two ends both say something; the tooltip has all).
QTableView *makeTable(QAbstractItemModel *model, QWidget *parent, Qt::TextElideMode elide = Qt::ElideRight);

// `body` (a table, or anything shown as one) under its title: rich text that
// wraps; the body takes the height.
QWidget *titled(const QString &title, QWidget *body, QWidget *parent);

} // namespace syncscope::ui
