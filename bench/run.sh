#!/usr/bin/env bash
# Reproducible benchmark (docs/behaviour.md §11): generate the deterministic
# live_specs dump, then time the jq baseline and schedtool on it in the
# same run, with peak memory from /usr/bin/time -v.
#
#   bench/run.sh [ROWS]          # default 200000 rows (about 131 MB)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000}
runs=${RUNS:-3}
out=bench/out
mkdir -p "$out"
dump="$out/dump-$rows.ndjson"
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }

go build -o "$out/schedtool" ./cmd/schedtool
[ -f "$dump" ] || go run ./bench/gendump -rows "$rows" > "$dump"
size=$(stat -c %s "$dump")

# migrate exits 2 while tasks need review: a result, not a failure.
MEASURE_ANY_EXIT=1
. bench/lib.sh # measure

jqprog='select(.spec_type=="materialization")
  | [(.spec.endpoint.connector.image // "" | split(":")[0]),
     (.spec.shards.flags["enable-runtime-v2"] // "v1"),
     (if .spec.syncSchedule then "model" else "-" end),
     (.spec.endpoint.connector.config.syncSchedule.syncFrequency
      // .spec.endpoint.connector.config.uploadInterval
      // .spec.endpoint.connector.config.upload_interval // "absent")]'

results=$(
  measure jq sh -c "jq -c '$jqprog' '$dump' | sort | uniq -c"
  measure "validate -o json" "$out/schedtool" validate -o json "$dump"
  if "$out/schedtool" census --help >/dev/null 2>&1; then
    measure "census -o json" "$out/schedtool" census -o json "$dump"
  fi
  if "$out/schedtool" migrate --help >/dev/null 2>&1; then
    measure "migrate --out" "$out/schedtool" migrate --force --out "$out/migrated.ndjson" "$dump"
  fi
)
jq_s=$(echo "$results" | awk -F'|' '$1=="jq" {print $2}')
echo "rows: $rows, dump: $((size / 1000000)) MB, cores: $(nproc), best of $runs"
printf '%-20s %9s %9s %12s\n' command seconds "vs jq" "peak RSS"
echo "$results" | while IFS='|' read -r name s kb; do
  printf '%-20s %9.2f %8.1fx %9d MiB\n' "$name" "$s" "$(awk "BEGIN {print $jq_s / $s}")" "$((kb / 1024))"
done
