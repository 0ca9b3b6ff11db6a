#!/usr/bin/env bash
# scripts/check-format on a repository of two files, one formatted and one not:
# it names the one that differs and fails; passes once it is formatted; skips
# (77) without clang-format, and fails without it when CI is set.
set -euo pipefail
src="$1"
cf=$(command -v clang-format-14 || command -v clang-format || true)
[[ -n "$cf" ]] || { echo "skipped: clang-format is not installed"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/repo/core" "$t/repo/build" "$t/bin"
cp "$src/.clang-format" "$t/repo/"
cp "$src/scripts/check-format" "$t/check-format"
printf 'int good(int a)\n{\n    int b = a;\n    return b;\n}\n' > "$t/repo/core/good.cpp"
(cd "$t/repo" && "$cf" -i core/good.cpp) # formatted as this .clang-format says
printf 'int  bad( int a ) { return a; }\n' > "$t/repo/core/bad.cpp"
printf 'int  skipped( ) ;\n' > "$t/repo/build/generated.h"
fail() { echo "check_format_test: $*" >&2; exit 1; }

rc=0; out=$(env -u CI "$t/check-format" "$t/repo" 2>&1) || rc=$?
[[ $rc -eq 1 ]] || fail "an unformatted file: exit $rc, want 1: $out"
grep -q '^core/bad.cpp: differs' <<<"$out" || fail "core/bad.cpp not named: $out"
! grep -q 'good.cpp\|generated.h' <<<"$out" || fail "a formatted or skipped file named: $out"

"$cf" -i "$t/repo/core/bad.cpp"
rc=0; out=$(env -u CI "$t/check-format" "$t/repo" 2>&1) || rc=$?
[[ $rc -eq 0 ]] || fail "every file formatted: exit $rc, want 0: $out"

# No clang-format on the PATH: only what the script needs besides it.
for tool in bash env git grep find sort cmp mktemp dirname; do
  p=$(command -v "$tool") && ln -s "$p" "$t/bin/$tool"
done
rc=0; out=$(env -u CI PATH="$t/bin" SYNCSCOPE_CLANG_FORMAT= "$t/check-format" "$t/repo" 2>&1) || rc=$?
[[ $rc -eq 77 ]] || fail "no clang-format: exit $rc, want 77 (skip): $out"
grep -q 'skipped: clang-format is not installed' <<<"$out" || fail "no reason given for the skip: $out"
rc=0; out=$(env CI=true PATH="$t/bin" SYNCSCOPE_CLANG_FORMAT= "$t/check-format" "$t/repo" 2>&1) || rc=$?
[[ $rc -eq 1 ]] || fail "no clang-format with CI set: exit $rc, want 1: $out"
grep -q 'CI is set' <<<"$out" || fail "no reason given for the failure: $out"
echo "check_format_test: ok"
