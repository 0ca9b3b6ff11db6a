#pragma once
// The one error type that crosses the core boundary: one sentence for the user.
#include <stdexcept>
#include <string>

namespace syncscope {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown when a CancelToken fired; callers treat it as a normal outcome.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled by the user") {}
};

} // namespace syncscope
