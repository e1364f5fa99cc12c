#!/usr/bin/env bash
# Peak resident memory and time of finding the users of a config file on a
# root that holds much unrelated JSON (issue 25 §5; docs/speed.md): 16
# files of 30 MB beside a catalog whose config file migrate must change.
# migrate reads every file under the root to find the file's users; each
# large file is judged by a stream in bounded memory (catalog/sniff.go).
# Compared with `cat` of the same files. KIND=plain: rows that mention no
# catalog key (most data); the default, KIND=mentions, rows that mention
# them all (only the files' structure says they are no source).
#
#   bench/users-walk.sh                    # this build
#   BEFORE=old/schedtool bench/users-walk.sh   # also another build
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
kind=${KIND:-mentions}
root="$out/users-root-$kind"
row='{"id": 12345, "collections": {"materializations": [1, 2, 3], "import": "a \"quoted\" {value}"}, "note": "lorem ipsum dolor sit amet"},'
[ "$kind" = plain ] && row='{"id": 12345, "kind": {"events": [1, 2, 3], "source": "a \"quoted\" {value}"}, "note": "lorem ipsum dolor sit amet"},'
mkdir -p "$out"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
go build -o "$out/schedtool" ./cmd/schedtool
if [ ! -f "$root/data/15.json" ]; then
  rm -rf "$root"
  mkdir -p "$root/data" "$root/catalog"
  # Unrelated JSON that mentions catalog keys inside its rows (so that
  # only its structure says it is no source).
  for i in $(seq 0 15); do
    { printf '{"rows": ['
      (yes "$row" || true) | head -c 30000000
      printf '{}]}\n'
    } > "$root/data/$i.json"
  done
  cat > "$root/catalog/flow.yaml" <<'YAML'
materializations:
  acmeCo/bench/materialize-snowflake:
    shards: {flags: {enable-runtime-v2: "true"}}
    endpoint:
      connector:
        image: ghcr.io/estuary/materialize-snowflake:v4
        config: ../shared.yaml
    bindings: []
YAML
  printf 'host: h\nwarehouse: w\nsyncSchedule:\n  syncFrequency: 30m\n' > "$root/shared.yaml"
fi
builds=("$out/schedtool")
[ -n "${BEFORE:-}" ] && builds+=("$BEFORE")
runs=${RUNS:-3}
# best of $runs: wall seconds, CPU seconds, peak RSS (KiB) of a command
best() {
  local w=999999 c=0 k=0
  for _ in $(seq "$runs"); do
    "$@" || [ $? = 2 ] || { cat "$out/stderr.txt" >&2; exit 1; }
    local ww cc kk
    ww=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/time.txt")
    cc=$(awk -F': ' '/(User|System) time/ {s += $2} END {print s}' "$out/time.txt")
    kk=$(awk -F': ' '/Maximum resident/ {print $2}' "$out/time.txt")
    if awk "BEGIN {exit !($ww < $w)}"; then w=$ww c=$cc; fi
    [ "$kk" -gt "$k" ] && k=$kk
  done
  printf '%8d MiB %9.2f %9.2f\n' "$((k / 1024))" "$w" "$c"
}
cat "$root"/data/*.json > /dev/null # warm the page cache
printf '%-28s %12s %9s %9s\n' run "peak RSS" seconds "CPU s"
printf '%-28s ' "cat of the 16 files"
best /usr/bin/time -v -o "$out/time.txt" sh -c "cat $root/data/*.json > /dev/null"
for b in "${builds[@]}"; do
  # The PATH is the catalog alone: the users are looked for in the whole
  # root (--root), every file of it read. Exit 2: changes pending.
  printf '%-28s ' "$b"
  best /usr/bin/time -v -o "$out/time.txt" sh -c "\"$b\" migrate -q --root $root $root/catalog >/dev/null 2>$out/stderr.txt"
  runs=1 # a slow build once
done
