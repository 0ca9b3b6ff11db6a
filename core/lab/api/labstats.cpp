#include "lab/api/labstats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace syncscope::lab {

StepStats summarize(std::vector<double> s)
{
    StepStats st;
    if (s.empty())
        return st;
    std::sort(s.begin(), s.end());
    auto quantile = [&](double q) {
        // linear interpolation between closest ranks (numpy's default)
        const double pos = q * static_cast<double>(s.size() - 1);
        const auto lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, s.size() - 1);
        return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
    };
    st.medianMs = quantile(0.5);
    st.p5Ms = quantile(0.05);
    st.p95Ms = quantile(0.95);
    st.minMs = s.front();
    st.meanMs = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    double var = 0;
    for (double x : s)
        var += (x - st.meanMs) * (x - st.meanMs);
    st.stdevMs = s.size() > 1 ? std::sqrt(var / static_cast<double>(s.size() - 1)) : 0.0;
    return st;
}

// Regularized upper incomplete gamma Q(a, x): series below a + 1, continued
// fraction above (Lentz), both in log space so large dof stay finite.
namespace {
double gammaQ(double a, double x)
{
    if (x <= 0)
        return 1.0;
    const double lnPrefix = a * std::log(x) - x - std::lgamma(a);
    if (x < a + 1) {
        double sum = 1.0 / a, term = sum;
        for (int n = 1; n < 100000; ++n) {
            term *= x / (a + n);
            sum += term;
            if (std::fabs(term) < std::fabs(sum) * 1e-15)
                break;
        }
        return std::max(0.0, 1.0 - std::exp(lnPrefix) * sum);
    }
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; ++i) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (std::fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (std::fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (std::fabs(del - 1) < 1e-15)
            break;
    }
    return std::min(1.0, std::exp(lnPrefix) * h);
}

} // namespace

// The covariance of one subset indicator vector is p(1-p) c/(c-1) times a
// rank c-1 projection, hence the (c - 1)/c factor.
void addSubsetChi2(const int64_t *counts, int64_t c, int64_t m, int64_t runs, double &chi2, double &dof)
{
    if (c < 2 || m <= 0 || m >= c || runs <= 0)
        return;
    const double p = static_cast<double>(m) / static_cast<double>(c);
    const double expected = static_cast<double>(runs) * p;
    double ss = 0;
    for (int64_t i = 0; i < c; ++i) {
        const double d = static_cast<double>(counts[i]) - expected;
        ss += d * d;
    }
    chi2 += ss * static_cast<double>(c - 1) / (static_cast<double>(runs) * p * (1 - p) * static_cast<double>(c));
    dof += static_cast<double>(c - 1);
}

double chiSquareSurvival(double x, double dof)
{
    if (dof <= 0)
        return 1.0;
    return gammaQ(dof / 2.0, x / 2.0);
}

} // namespace syncscope::lab
