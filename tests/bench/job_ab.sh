#!/usr/bin/env bash
# Two builds of syncscope-cli on one job's rank summaries, interleaved RUNS
# times in one script (a benchmark, not a test): wall time and peak RSS of
# `analyze DIR/GLOB --json` under GNU time (GLOB: *.summary unless given, e.g.
# 'rank-*.json' for the traces), and whether the two builds wrote the same JSON
# and text, byte for byte. The load average before and after.
# Usage: tests/bench/job_ab.sh BEFORE_CLI AFTER_CLI DIR [RUNS] [GLOB]
# (each CLI with its libsyncscope_lab.so beside it; DIR from job_gen.py, then
# `syncscope-cli summarize` of each rank)
set -euo pipefail
before=$1 after=$2 dir=$3 runs=${4:-3} glob=${5:-*.summary}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
shopt -s nullglob
summaries=("$dir"/$glob)
(( ${#summaries[@]} )) || { echo "job_ab.sh: no files $glob in $dir" >&2; exit 2; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= runs; ++i)); do
  for side in before after; do
    cli=$before; [[ $side == after ]] && cli=$after
    /usr/bin/time -f "$side run $i: %e s, peak RSS %M KB" -o "$out/time" \
      "$cli" analyze "${summaries[@]}" --json "$out/$side.json" >"$out/$side.txt" 2>/dev/null
    cat "$out/time"
  done
  if cmp -s "$out/before.json" "$out/after.json" && cmp -s "$out/before.txt" "$out/after.txt"; then
    echo "run $i: the same JSON and text"
  else
    echo "run $i: the outputs DIFFER"
  fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
