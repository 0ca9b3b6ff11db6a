#include "tables.h"

#include <QHeaderView>
#include <QTableView>

namespace syncscope::ui {

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent, Qt::TextElideMode elide)
{
    auto *t = new QTableView(parent);
    t->setModel(model);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setSortingEnabled(true);
    t->setAlternatingRowColors(true);
    t->setWordWrap(false);
    t->verticalHeader()->setVisible(false);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    t->setTextElideMode(elide);
    t->setContextMenuPolicy(Qt::CustomContextMenu);
    return t;
}

} // namespace syncscope::ui
