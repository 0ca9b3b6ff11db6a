#pragma once
// Finds and loads the lab library (libsyncscope_lab.so) on first use. Torch-free:
// the viewer and the CLI link this, never LibTorch.
//
// Where it looks, first hit wins:
//   1. $SYNCSCOPE_LAB, the library's path, when set (nothing else is tried);
//   2. beside the executable (the build tree, a relocatable install);
//   3. <executable>/../lib/syncscope/ (the installed layout).
//
// This is the one way the app and the CLI get the lab: loadLab() (a pointer,
// or null and the sentence) or requireLab() (a reference, or Error with the
// sentence). They then call its operations on the LabInterface they hold.
#include "lab/api/labinterface.h"

#include <string>

namespace syncscope::lab {

// Loads the lab once per process (thread-safe; later calls return at once).
// Null on failure, with the one sentence in *error.
LabInterface *loadLab(std::string *error = nullptr);

// The lab, loading it first; throws syncscope::Error with the one sentence when
// it cannot load.
LabInterface &requireLab();

// The loaded lab, or null when no load has finished yet or it failed. Never blocks.
LabInterface *loadedLab();

// Whether a load has finished (successfully or not). Never blocks.
bool labLoadFinished();

// Why the lab could not load: one sentence naming the library path and the
// loader's reason. Empty while not tried or after success.
std::string labLoadError();

} // namespace syncscope::lab
