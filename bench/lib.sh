# Shared by the benchmark scripts; sourced, never run. Needs $out and $runs.

# measure NAME CMD...: runs CMD $runs times under /usr/bin/time -v and prints
# "NAME|best wall seconds|peak RSS in KiB of that run". The last run's
# standard output is left in $out/last.txt. A command that fails stops the
# benchmark, unless MEASURE_ANY_EXIT=1 (migrate exits 2 while tasks need
# review, and that is a result, not a failure).
measure() {
  local name=$1; shift
  local best="" rss=""
  for _ in $(seq "$runs"); do
    if ! /usr/bin/time -v -o "$out/time.txt" "$@" > "$out/last.txt" 2>"$out/stderr.txt"; then
      if [ "${MEASURE_ANY_EXIT:-0}" != 1 ]; then
        cat "$out/stderr.txt" >&2
        exit 1
      fi
    fi
    local wall kb
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/time.txt")
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/time.txt")
    if [ -z "$best" ] || awk "BEGIN {exit !($wall < $best)}"; then best=$wall; rss=$kb; fi
  done
  echo "$name|$best|$rss"
}
