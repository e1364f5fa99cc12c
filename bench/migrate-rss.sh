#!/usr/bin/env bash
# Peak resident memory of migrate --out FILE (docs/behaviour.md §11, issue 18
# "At fleet scale"): it must stay flat, at most 64 MiB, whatever the row
# count. Generates the deterministic dumps (bench/gendump) and runs
# migrate --out FILE on each under /usr/bin/time -v, one run a size.
#
#   bench/migrate-rss.sh [ROWS...]     # default 200000 1000000
#   BEFORE=old/schedtool bench/migrate-rss.sh   # also another build, interleaved
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
[ $# -gt 0 ] || set -- 200000 1000000
go build -o "$out/schedtool" ./cmd/schedtool
builds=("$out/schedtool")
[ -n "${BEFORE:-}" ] && builds+=("$BEFORE")
printf '%-10s %-24s %12s %9s %9s\n' rows build "peak RSS" seconds "CPU s"
for rows in "$@"; do
  dump="$out/dump-$rows.ndjson"
  [ -f "$dump" ] || go run ./bench/gendump -rows "$rows" > "$dump"
  for b in "${builds[@]}"; do
    rm -f "$out/migrated.ndjson"
    # migrate exits 2 while tasks need review: a result, not a failure.
    /usr/bin/time -v -o "$out/time.txt" "$b" migrate --force -q --out "$out/migrated.ndjson" "$dump" >/dev/null 2>"$out/stderr.txt" || [ $? = 2 ] || { cat "$out/stderr.txt" >&2; exit 1; }
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/time.txt")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/time.txt")
    cpu=$(awk -F': ' '/(User|System) time/ {s += $2} END {print s}' "$out/time.txt")
    printf '%-10s %-24s %8d MiB %9.2f %9.2f\n' "$rows" "$b" "$((kb / 1024))" "$wall" "$cpu"
  done
done
rm -f "$out/migrated.ndjson"
