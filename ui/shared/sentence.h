#pragma once
// Refusals read as sentences: each starts with a capital and ends with a full
// stop, whatever wording the layer below used.
#include <QString>

namespace syncscope::ui {

// "PATH: reason." becomes "Cannot open 'PATH': reason."; "cannot read 'X': …"
// becomes "Cannot read 'X': …"; a full stop is added where none ends it.
QString refusalSentence(const QString &error);

// The text with a break opportunity after every '/', so that a long path
// wraps in a label instead of widening the window.
QString wrappablePaths(const QString &text);

} // namespace syncscope::ui
