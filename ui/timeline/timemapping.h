#pragma once
// Time <-> pixel mapping of the timeline: pure, no Qt, so it is tested alone.
// A view shows the times [start, end] across `width` pixels, x = 0 at start.
// A zero-length range (start == end) maps like a 1 ns range, so nothing ever
// divides by zero; fitted() widens it to a visible window instead.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace syncscope::ui {

class TimeMapping {
public:
    using Ns = int64_t;

    TimeMapping() = default;
    TimeMapping(Ns start, Ns end, double width)
        : m_start(start), m_end(std::max(start, end)), m_width(std::max(width, 1.0))
    {
    }

    // The whole of [lo, hi] with no margin; an empty or inverted range becomes a
    // window of minSpan centred on lo, so a single instant is still visible.
    static TimeMapping fitted(Ns lo, Ns hi, double width, Ns minSpan = 1000)
    {
        if (hi - lo < minSpan) {
            const Ns mid = lo + (std::max(hi, lo) - lo) / 2;
            lo = mid - minSpan / 2;
            hi = lo + minSpan;
        }
        return TimeMapping(lo, hi, width);
    }

    Ns start() const { return m_start; }
    Ns end() const { return m_end; }
    Ns span() const { return m_end - m_start; }
    double width() const { return m_width; }
    // Nanoseconds per pixel; a zero-length range counts as 1 ns.
    double nsPerPixel() const { return double(effectiveSpan()) / m_width; }
    double pixelsPerNs() const { return m_width / double(effectiveSpan()); }

    double toPixel(Ns t) const { return double(t - m_start) * pixelsPerNs(); }
    // Pixel positions of far-away times are clamped so they convert to int safely.
    double toPixelClamped(Ns t, double limit = 1e7) const { return std::clamp(toPixel(t), -limit, limit); }
    Ns toTime(double x) const { return m_start + Ns(std::llround(x * nsPerPixel())); }
    // Length in pixels of a duration.
    double toPixels(Ns duration) const { return double(duration) * pixelsPerNs(); }
    Ns toDuration(double pixels) const { return Ns(std::llround(pixels * nsPerPixel())); }

    // Zooms by factor (> 1 zooms in) keeping the time under pixel x fixed. The
    // span never gets shorter than minSpan.
    TimeMapping zoomedAround(double x, double factor, Ns minSpan = 10) const
    {
        if (!(factor > 0))
            return *this;
        const Ns anchor = toTime(x);
        const double frac = std::clamp(x / m_width, 0.0, 1.0);
        double newSpan = double(effectiveSpan()) / factor;
        newSpan = std::max(newSpan, double(std::max<Ns>(minSpan, 1)));
        newSpan = std::min(newSpan, double(std::numeric_limits<Ns>::max() / 4));
        const Ns s = anchor - Ns(std::llround(newSpan * frac));
        return TimeMapping(s, s + Ns(std::llround(newSpan)), m_width);
    }

    // Moves the view by dx pixels: positive dx shows later times.
    TimeMapping panned(double dx) const
    {
        const Ns d = toDuration(dx);
        return TimeMapping(m_start + d, m_end + d, m_width);
    }

    TimeMapping withWidth(double width) const { return TimeMapping(m_start, m_end, width); }

    // Keeps the view inside [lo, hi] (plus margin on each side) without changing
    // its span, unless the span itself is wider: then it is fitted to the bounds.
    TimeMapping clampedTo(Ns lo, Ns hi, Ns margin = 0) const
    {
        lo -= margin;
        hi += margin;
        if (hi <= lo)
            return *this;
        const Ns s = span();
        if (s >= hi - lo)
            return TimeMapping(lo, hi, m_width);
        Ns start = std::clamp(m_start, lo, hi - s);
        return TimeMapping(start, start + s, m_width);
    }

    bool operator==(const TimeMapping &o) const
    {
        return m_start == o.m_start && m_end == o.m_end && m_width == o.m_width;
    }
    bool operator!=(const TimeMapping &o) const { return !(*this == o); }

private:
    Ns effectiveSpan() const { return std::max<Ns>(m_end - m_start, 1); }

    Ns m_start = 0;
    Ns m_end = 1;
    double m_width = 1;
};

} // namespace syncscope::ui
