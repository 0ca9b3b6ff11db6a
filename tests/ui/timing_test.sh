#!/usr/bin/env bash
# `syncscope --timing FILE` opens FILE in a real (offscreen) window and prints
#   window shown at X ms
#   first frame with FILE at Y ms
# with 0 <= X <= Y, then exits 0.   timing_test.sh GUI FILE
set -u
gui="$1" file="$2"
out=$(QT_QPA_PLATFORM=offscreen timeout 120 "$gui" --timing "$file" 2>&1)
rc=$?
echo "$out"
[[ $rc -eq 0 ]] || { echo "FAIL: exit code $rc" >&2; exit 1; }
shown=$(sed -n 's/^window shown at \([0-9]\+\) ms$/\1/p' <<<"$out")
frame=$(sed -n "s|^first frame with $file at \\([0-9]\\+\\) ms\$|\\1|p" <<<"$out")
[[ -n "$shown" ]] || { echo "FAIL: no 'window shown at X ms' line" >&2; exit 1; }
[[ -n "$frame" ]] || { echo "FAIL: no 'first frame with $file at Y ms' line" >&2; exit 1; }
shownLine=$(grep -n '^window shown at' <<<"$out" | cut -d: -f1)
frameLine=$(grep -n '^first frame with' <<<"$out" | cut -d: -f1)
(( shownLine < frameLine && shown <= frame )) ||
  { echo "FAIL: the first frame ($frame ms) came before the window was shown ($shown ms)" >&2; exit 1; }
echo "ok"
