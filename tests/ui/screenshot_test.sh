#!/usr/bin/env bash
# `syncscope --screenshot-dir DIR --screenshot-name NAME FILE` opens FILE in the
# Timeline (offscreen), selects the gap table's top row, writes
# DIR/timeline-NAME.png, prints its path and exits 0; a file that does not load
# exits 1 with the loader's sentence and writes nothing.   screenshot_test.sh GUI FILE
set -u
gui="$1" file="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$(QT_QPA_PLATFORM=offscreen timeout 120 "$gui" --screenshot-dir "$dir" --screenshot-name t "$file" 2>&1)
rc=$?
echo "$out"
[[ $rc -eq 0 ]] || { echo "FAIL: exit code $rc" >&2; exit 1; }
grep -qx "$dir/timeline-t.png" <<<"$out" || { echo "FAIL: the path was not printed" >&2; exit 1; }
[[ "$(head -c 8 "$dir/timeline-t.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] ||
  { echo "FAIL: $dir/timeline-t.png is not a PNG" >&2; exit 1; }
printf 'not json' >"$dir/bad.json"
out=$(QT_QPA_PLATFORM=offscreen timeout 120 "$gui" --screenshot-dir "$dir" --screenshot-name bad "$dir/bad.json" 2>&1)
rc=$?
echo "$out"
[[ $rc -eq 1 && ! -e "$dir/timeline-bad.png" ]] || { echo "FAIL: a bad file gave exit $rc or a picture" >&2; exit 1; }
echo "ok"
