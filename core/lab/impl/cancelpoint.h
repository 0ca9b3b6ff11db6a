#pragma once
// Cancellation between the ATen calls of one step. A step of a tensor-level
// sampler is a dozen ATen calls of up to a few hundred milliseconds each at
// N = 1e7, so polling the token only between steps leaves the worker running
// for a whole step after Cancel. The harness (runBench, runDistribution) opens
// a CancelScope on its thread; the samplers call cancelPoint() between their
// ATen calls, which throws Cancelled once the token fired. Outside a scope
// (the CLI's `sample`, tests calling a variant directly) it does nothing.
#include "common/error.h"
#include "common/progress.h"

namespace syncscope::lab {

namespace detail {
inline const CancelToken *&currentCancelToken()
{
    static thread_local const CancelToken *token = nullptr;
    return token;
}
} // namespace detail

class CancelScope {
public:
    explicit CancelScope(const CancelToken *token) : m_prev(detail::currentCancelToken())
    {
        detail::currentCancelToken() = token;
    }
    ~CancelScope() { detail::currentCancelToken() = m_prev; }
    CancelScope(const CancelScope &) = delete;
    CancelScope &operator=(const CancelScope &) = delete;

private:
    const CancelToken *m_prev;
};

// Throws Cancelled when this thread's scope holds a token that fired.
inline void cancelPoint()
{
    const CancelToken *t = detail::currentCancelToken();
    if (t && t->cancelled())
        throw Cancelled();
}

} // namespace syncscope::lab
