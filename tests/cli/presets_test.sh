#!/bin/sh
# The sanitizer options scripts/build exports for test discovery are those the
# asan and tsan test presets give CTest.
set -eu
src="$1"
. "$src/scripts/sanitizer-env"
python3 - "$src/CMakePresets.json" <<PY
import json, sys
presets = {p["name"]: p.get("environment", {}) for p in json.load(open(sys.argv[1]))["testPresets"]}
want = {"asan": {"ASAN_OPTIONS": "$ASAN_OPTIONS", "UBSAN_OPTIONS": "$UBSAN_OPTIONS"},
        "tsan": {"TSAN_OPTIONS": "$TSAN_OPTIONS"}}
bad = [(leg, k) for leg, env in want.items() for k, v in env.items() if presets.get(leg, {}).get(k) != v]
for leg, k in bad:
    print(f"test preset {leg}: {k} differs from scripts/sanitizer-env")
for leg in ("deb", "viewer", "pt211", "asan", "tsan", "fuzz"):
    if leg not in presets:
        print(f"no test preset for the leg {leg}")
        bad.append((leg, None))
sys.exit(1 if bad else 0)
PY
