#!/bin/sh
# The sanitizer options scripts/build exports for test discovery are those the
# asan and tsan test presets give CTest; and every leg of scripts/legs is a
# configure preset building into build/LEG and a test preset of that preset.
set -eu
src="$1"
. "$src/scripts/sanitizer-env"
legs=$(bash -c '. "$1/scripts/legs" && echo "${syncscope_legs[*]}"' legs "$src")
python3 - "$src/CMakePresets.json" "$legs" <<PY
import json, sys
doc = json.load(open(sys.argv[1]))
presets = {p["name"]: p.get("environment", {}) for p in doc["testPresets"]}
tests = {p["name"]: p for p in doc["testPresets"]}
configures = {p["name"]: p for p in doc["configurePresets"]}
want = {"asan": {"ASAN_OPTIONS": "$ASAN_OPTIONS", "UBSAN_OPTIONS": "$UBSAN_OPTIONS"},
        "tsan": {"TSAN_OPTIONS": "$TSAN_OPTIONS"}}
bad = [(leg, k) for leg, env in want.items() for k, v in env.items() if presets.get(leg, {}).get(k) != v]
for leg, k in bad:
    print(f"test preset {leg}: {k} differs from scripts/sanitizer-env")
legs = sys.argv[2].split()
if not legs:
    print("scripts/legs lists no leg")
    bad.append((None, None))
for leg in legs:
    if leg not in tests:
        print(f"no test preset for the leg {leg}")
        bad.append((leg, None))
    elif tests[leg].get("configurePreset") != leg:
        print(f"test preset {leg}: its configurePreset is not {leg}")
        bad.append((leg, None))
    if leg not in configures:
        print(f"no configure preset for the leg {leg}")
        bad.append((leg, None))
    elif configures[leg].get("binaryDir") != "\${sourceDir}/build/" + leg:
        print(f"configure preset {leg}: binaryDir is not \${sourceDir}/build/{leg}")
        bad.append((leg, None))
sys.exit(1 if bad else 0)
PY
