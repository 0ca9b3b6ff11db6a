#!/usr/bin/env bash
# The viewer's CLI without the lab, and under tight address-space limits.
#   lab_seam_test.sh CLI DATA_DIR SHARED_DIR CHECK
# CHECK is one of:
#   absent   the lab commands fail with one sentence naming the library and
#            the loader's reason (SYNCSCOPE_LAB points nowhere); analyze and
#            diff work all the same
#   version  --version works under ulimit -v 100000 (100 MB): it loads no LibTorch
#   analyze  analyze on the 26 MB rank-0 trace works under ulimit -v 400000
# Exit 77 (skip) when a shared trace is missing, unless CI is set.
set -u
cli="$1" data="$2" shared="$3" check="$4"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

case "$check" in
absent)
  bogus="$tmp/nowhere/libsyncscope_lab.so"
  for cmd in "variants" "bench --variants fused --n 1000 --iters 3" \
             "sample --variant fused --n 100 --k 10 --json $tmp/s.json" \
             "profile --variant naive --n 1000 --steps 1 --out $tmp/p.json"; do
    # shellcheck disable=SC2086
    SYNCSCOPE_LAB="$bogus" "$cli" $cmd >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [[ $rc -ne 0 ]] || fail "'$cmd' without the lab exited 0"
    [[ $(wc -l <"$tmp/err") -eq 1 ]] || { cat "$tmp/err" >&2; fail "'$cmd': not one line on stderr"; }
    grep -q "cannot load the lab library '$bogus' (from SYNCSCOPE_LAB): .*No such file" "$tmp/err" ||
      { cat "$tmp/err" >&2; fail "'$cmd': the sentence does not name the library and the reason"; }
  done
  SYNCSCOPE_LAB="$bogus" "$cli" analyze "$data/gpu_sync_gaps.json" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; fail "analyze needs the lab"; }
  grep -qi "sync" "$tmp/out" || fail "analyze printed no report"
  SYNCSCOPE_LAB="$bogus" "$cli" diff "$data/diff_before.json" "$data/diff_after.json" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; fail "diff needs the lab"; }
  # A file that is not a lab: refused with the same kind of sentence.
  echo "not a library" >"$tmp/libsyncscope_lab.so"
  SYNCSCOPE_LAB="$tmp/libsyncscope_lab.so" "$cli" variants >/dev/null 2>"$tmp/err" && fail "a bogus lab was accepted"
  grep -q "cannot load the lab library '$tmp/libsyncscope_lab.so'" "$tmp/err" || { cat "$tmp/err" >&2; fail "bogus lab"; }
  ;;
version)
  out=$(bash -c 'ulimit -v 100000; exec "$0" --version' "$cli" 2>&1) || fail "--version under ulimit -v 100000: $out"
  [[ "$out" == "syncscope-cli "* ]] || fail "--version printed '$out'"
  ;;
analyze)
  trace="$shared/traces/hta_16rank_job_rank0.json.gz"
  if [[ ! -f "$trace" ]]; then
    [[ -z "${CI:-}" ]] || fail "shared trace missing under CI: $trace"
    echo "skip: shared trace not present: $trace"; exit 77
  fi
  bash -c 'ulimit -v 400000; exec "$0" analyze "$1" --json "$2"' "$cli" "$trace" "$tmp/a.json" \
    >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; fail "analyze under ulimit -v 400000 failed"; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d else 1)' "$tmp/a.json" ||
    fail "analyze wrote no JSON report"
  ;;
*) fail "unknown check '$check'" ;;
esac
echo "ok: $check"
