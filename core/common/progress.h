#pragma once
// Progress and cancellation for long core jobs (see HOUSE_STYLE "Long work").
#include "common/error.h"

#include <atomic>
#include <functional>
#include <memory>

namespace syncscope {

// Shared flag: the UI sets it, the job polls it every few thousand events or
// every iteration and stops with a Cancelled error.
class CancelToken {
public:
    void cancel() { m_flag.store(true, std::memory_order_relaxed); }
    bool cancelled() const { return m_flag.load(std::memory_order_relaxed); }
    void reset() { m_flag.store(false, std::memory_order_relaxed); }

private:
    std::atomic<bool> m_flag{false};
};

// The poll: throws Cancelled once the token (if any) is cancelled.
inline void checkCancel(const CancelToken *cancel)
{
    if (cancel && cancel->cancelled())
        throw Cancelled();
}

// fraction in [0, 1]; message is a short human label of the current stage.
using ProgressFn = std::function<void(double fraction, const char *message)>;

} // namespace syncscope
