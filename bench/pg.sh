#!/usr/bin/env bash
# Census from PostgreSQL, measured (SPEC sections 11 and 12): the
# deterministic dump is loaded into a throwaway live_specs table shaped like
# Flow's, then, in one run, census reads it from the database, census reads
# the dump file, and PostgreSQL itself runs the jq baseline's partial census
# (image, runtime flag, model schedule present, frequency; grouped) in SQL.
# Wall time and peak RSS from /usr/bin/time -v (for the SQL query: psql's;
# the server's own memory is not in it).
#
#   bench/pg.sh [ROWS]     # default 200000 rows, best of 3 (RUNS=1: one each)
#   BEFORE=old/schedtool bench/pg.sh   # also times census from PostgreSQL
#                                      # with another build, in the same run
#
# Uses the server of $SCHEDTOOL_TEST_PG, or starts a throwaway one with
# scripts/pg-test-cluster (and stops it at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000}
runs=${RUNS:-3}
out=bench/out
mkdir -p "$out"
dump="$out/dump-$rows.ndjson"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
command -v psql >/dev/null || { echo "bench: psql is needed (apt-get install postgresql-client)" >&2; exit 1; }

cleanup=()
trap 'for c in "${cleanup[@]}"; do eval "$c" || true; done' EXIT
if [ -z "${SCHEDTOOL_TEST_PG:-}" ]; then
  pgenv=$(scripts/pg-test-cluster start)
  eval "$pgenv"
  cleanup+=("scripts/pg-test-cluster stop '$SCHEDTOOL_TEST_PG_DIR'")
fi

go build -o "$out/schedtool" ./cmd/schedtool
go build -o "$out/pgload" ./bench/pgload
[ -f "$dump" ] || go run ./bench/gendump -rows "$rows" > "$dump"
echo "bench: loading $rows rows into PostgreSQL" >&2
read -r db url < <("$out/pgload" < "$dump")
cleanup=("'$out/pgload' -drop '$db'" "${cleanup[@]}")
# The same database as its owner (the superuser), for the SQL baseline.
super=$(echo "$SCHEDTOOL_TEST_PG" | sed "s|/postgres?|/$db?|")
# Vacuumed, as autovacuum keeps a control plane's table: otherwise the
# first command to read the fresh rows pays for setting their hint bits.
psql -X -q "$super" -c 'VACUUM (FREEZE, ANALYZE) public.live_specs'

. bench/lib.sh # measure

# The jq baseline's projection, in SQL. spec is json (text), so it is cast
# to jsonb once a row rather than re-parsed by each ->.
sql="SELECT image, runtime, model, frequency, count(*) FROM (
  SELECT split_part(coalesce(j->'endpoint'->'connector'->>'image', ''), ':', 1) AS image,
         coalesce(j->'shards'->'flags'->>'enable-runtime-v2', 'v1') AS runtime,
         CASE WHEN coalesce(j->'syncSchedule', 'null') IN ('null', 'false') THEN '-' ELSE 'model' END AS model,
         coalesce(j->'endpoint'->'connector'->'config'->'syncSchedule'->>'syncFrequency',
                  j->'endpoint'->'connector'->'config'->>'uploadInterval',
                  j->'endpoint'->'connector'->'config'->>'upload_interval', 'absent') AS frequency
  FROM (SELECT spec::jsonb AS j FROM public.live_specs
        WHERE spec_type = 'materialization' AND spec IS NOT NULL) s) t
GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"

results=$(
  measure "census -o json, dump" "$out/schedtool" census -o json "$dump"
  measure "census -o json, PostgreSQL" "$out/schedtool" census -o json "$url"
  if [ -n "${BEFORE:-}" ]; then
    measure "same, BEFORE build" "$BEFORE" census -o json "$url"
  fi
  measure "SQL partial census (psql)" psql -X -q -A -t "$super" -c "$sql"
)
groups=$(wc -l < "$out/last.txt")
dump_s=$(echo "$results" | awk -F'|' 'NR==1 {print $2}')
echo "rows: $rows, dump: $(($(stat -c %s "$dump") / 1000000)) MB, cores: $(nproc), best of $runs, SQL groups: $groups"
printf '%-30s %9s %10s %12s\n' command seconds "vs dump" "peak RSS"
echo "$results" | while IFS='|' read -r name s kb; do
  printf '%-30s %9.2f %9.2fx %9d MiB\n' "$name" "$s" "$(awk "BEGIN {print $s / $dump_s}")" "$((kb / 1024))"
done
