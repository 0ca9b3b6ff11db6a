#include "tables.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

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

QWidget *titled(const QString &title, QWidget *body, QWidget *parent)
{
    auto *panel = new QWidget(parent);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(2, 2, 2, 2);
    auto *label = new QLabel(title, panel);
    label->setWordWrap(true);
    layout->addWidget(label);
    layout->addWidget(body, 1);
    return panel;
}

} // namespace syncscope::ui
