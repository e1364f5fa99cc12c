#!/usr/bin/env bash
# Census from PostgreSQL, measured (docs/behaviour.md §11 and §12): the
# deterministic dump is loaded into a throwaway live_specs table shaped like
# Flow's, then, in one run, census reads it from the database, census reads
# the dump file, and PostgreSQL itself runs the jq baseline's partial census
# (image, runtime flag, model schedule present, frequency; grouped) in SQL.
# Wall time and peak RSS from /usr/bin/time -v (for the SQL query: psql's;
# the server's own memory is not in it).
#
#   bench/pg.sh [ROWS]     # default 200000 rows, 3 rounds (RUNS=1: one)
#   BEFORE="old/schedtool ..." bench/pg.sh   # also times census from
#                              # PostgreSQL with other builds, in the same run
#
# The commands run interleaved, one of each a round, so that a shared
# machine's load weighs on all of them alike; each round's ratio to that
# round's census of the dump is kept, and the table gives the best time,
# the median ratio and the spread (lowest-highest ratio) over the rounds.
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

round() {
  measure "census -o json, dump" "$out/schedtool" census -o json "$dump"
  measure "census -o json, PostgreSQL" "$out/schedtool" census -o json "$url"
  for b in ${BEFORE:-}; do
    measure "same, $b" "$b" census -o json "$url"
  done
  measure "SQL partial census (psql)" psql -X -q -A -t "$super" -c "$sql"
}
rounds="$out/rounds.txt"
: > "$rounds"
wanted=$runs
runs=1 # measure's runs: one of each command a round
for r in $(seq "$wanted"); do
  round | sed "s/^/$r|/" >> "$rounds"
done
groups=$(wc -l < "$out/last.txt")
echo "rows: $rows, dump: $(($(stat -c %s "$dump") / 1000000)) MB, cores: $(nproc), $wanted interleaved rounds, SQL groups: $groups, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-40s %9s %12s %16s %12s\n' command "best s" "median x" "spread x" "peak RSS"
awk -F'|' '
  $2 ~ /dump$/ { dump[$1] = $3 }
  { name[NR] = $2; round[NR] = $1; s[NR] = $3; kb[NR] = $4 }
  END {
    for (i = 1; i <= NR; i++) {
      n = name[i]
      if (!(n in seen)) { seen[n] = 1; order[++k] = n }
      x = s[i] / dump[round[i]]
      ratios[n] = ratios[n] " " x
      if (!(n in best) || s[i] < best[n]) best[n] = s[i]
      if (kb[i] > rss[n]) rss[n] = kb[i]
    }
    for (j = 1; j <= k; j++) {
      n = order[j]
      m = split(substr(ratios[n], 2), r, " ")
      for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (r[b] < r[a]) { t = r[a]; r[a] = r[b]; r[b] = t }
      med = (m % 2) ? r[(m + 1) / 2] : (r[m / 2] + r[m / 2 + 1]) / 2
      printf "%-40s %9.2f %11.2fx %7.2fx-%.2fx %8d MiB\n", n, best[n], med, r[1], r[m], rss[n] / 1024
    }
  }' "$rounds"
