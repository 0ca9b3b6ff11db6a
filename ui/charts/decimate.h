#pragma once
// Level of detail for chart series (house style "Data and drawing"): at most
// about two points per pixel, keeping each bucket's min and max so that spikes
// survive decimation.
#include <QList>
#include <QPointF>

#include <algorithm>

namespace syncscope::ui {

// `points` sorted by x. Returns them unchanged when they already fit in
// `maxPoints`; otherwise splits them into maxPoints / 2 equal-count buckets and
// keeps each bucket's lowest and highest point, in x order.
inline QList<QPointF> decimateMinMax(const QList<QPointF> &points, int maxPoints)
{
    if (maxPoints < 2 || points.size() <= maxPoints)
        return points;
    const qsizetype buckets = maxPoints / 2;
    QList<QPointF> out;
    out.reserve(buckets * 2);
    const qsizetype n = points.size();
    for (qsizetype b = 0; b < buckets; ++b) {
        const qsizetype begin = b * n / buckets;
        const qsizetype end = (b + 1) * n / buckets;
        if (begin >= end)
            continue;
        qsizetype lo = begin, hi = begin;
        for (qsizetype i = begin + 1; i < end; ++i) {
            if (points[i].y() < points[lo].y())
                lo = i;
            if (points[i].y() > points[hi].y())
                hi = i;
        }
        if (lo == hi) {
            out.push_back(points[lo]);
        } else {
            out.push_back(points[std::min(lo, hi)]);
            out.push_back(points[std::max(lo, hi)]);
        }
    }
    return out;
}

} // namespace syncscope::ui
