#pragma once
// A window's keys work wherever the focus is. A text field claims some
// Ctrl keys for itself before any shortcut sees them (on X11, Ctrl+E moves to
// the end of the line, Ctrl+K deletes to it); while it has the focus, a key
// that one of the window's enabled actions uses goes to that action instead.
// The keys a field needs for editing (copy, cut, paste, undo, redo, select
// all, delete, moving the cursor) and plain typing stay the field's.
class QWidget;

namespace syncscope::ui {

// Applies to every text field and spin box inside `window` (and the windows
// it owns), for as long as the window lives.
void installShortcutPriority(QWidget *window);

} // namespace syncscope::ui
