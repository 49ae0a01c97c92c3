#!/usr/bin/env bash
# The unit suites beside a CPU hog: runs `dotnet test <project> -c Release --no-build` RUNS times in a row (default 5)
# while one `yes > /dev/null` per core keeps every core busy, and records each run's counts, duration and failed tests.
# Ends with one "N passed, N failed" line counting runs (a run passes when every project's tests pass). Exits non-zero
# when any run failed.
#
# Usage: .ci/suite-under-load.sh [--runs N] [--postgres] [--out DIR] [project...]
#   project      test projects to run (default tests/FixEngine.Tests); build them first (-c Release)
#   --postgres   start a throwaway PostgreSQL (.ci/postgres.sh) so the PostgreSQL store tests run instead of skipping
#   --out DIR    where each run's console log and TRX go (default a temporary directory, printed)
# Shared machines: while the file named by QUIET_FILE (default /tmp/quiet) exists someone is timing something, so the
# hogs are stopped and no new run starts until it is gone (a run already going finishes; its line says for how many
# of its seconds the hogs ran). LOCK_FILE (unset by default)
# is taken with flock around each run. FILTER (unset by default) is passed as --filter. HOGS sets the number of hogs (default: the number of online cores).
set -uo pipefail
cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

runs=5 postgres=0 out="" projects=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --postgres) postgres=1; shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) projects+=("$1"); shift ;;
  esac
done
[ ${#projects[@]} -eq 0 ] && projects=(tests/FixEngine.Tests)
quiet=${QUIET_FILE:-/tmp/quiet}
hogs=${HOGS:-$(nproc)}
[ -z "$out" ] && out=$(mktemp -d /tmp/suite-under-load.XXXXXX)
mkdir -p "$out"
echo "== logs in $out; $runs run(s) of ${projects[*]} beside $hogs CPU hog(s)"

hog_pids=() controller=""
stop_hogs() { local p; for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; hog_pids=(); }
cleanup() {
  [ -n "$controller" ] && { kill "$controller" 2>/dev/null; wait "$controller" 2>/dev/null; }
  [ "$postgres" = 1 ] && pg_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The hog controller: a subshell that keeps $hogs busy loops running while $quiet is absent and none while it exists;
# its own trap stops them when it is stopped.
hog_controller() {
  trap 'stop_hogs; exit 0' TERM INT
  trap 'stop_hogs' EXIT
  local i hog_seconds=0
  while true; do
    if [ -e "$quiet" ]; then
      if [ ${#hog_pids[@]} -gt 0 ]; then echo "   [$(date -u +%H:%M:%S)] $quiet exists: hogs stopped"; stop_hogs; fi
    elif [ ${#hog_pids[@]} -eq 0 ]; then
      for ((i = 0; i < hogs; i++)); do yes > /dev/null & hog_pids+=($!); done
      echo "   [$(date -u +%H:%M:%S)] $hogs hog(s) running: ${hog_pids[*]}"
    fi
    [ ${#hog_pids[@]} -gt 0 ] && echo $((++hog_seconds)) > "$out/hog-seconds"
    sleep 1 & wait $!
  done
}

if [ "$postgres" = 1 ]; then
  source .ci/postgres.sh
  pg_start || { echo "could not start PostgreSQL"; echo "0 passed, 1 failed"; exit 1; }
fi

hog_controller &
controller=$!

passed=0 failed=0
summary="$out/summary.txt"
: > "$summary"
for ((run = 1; run <= runs; run++)); do
  n=0; while [ -e "$quiet" ] && [ $n -lt 360 ]; do sleep 10; n=$((n+1)); done
  run_ok=1
  for p in "${projects[@]}"; do
    name=$(basename "$p")
    log="$out/run$run-$name.log"
    start=$(date +%s)
    hog_start=$(cat "$out/hog-seconds" 2>/dev/null || echo 0)
    lock=()
    [ -n "${LOCK_FILE:-}" ] && lock=(flock "$LOCK_FILE")
    filter=()
    [ -n "${FILTER:-}" ] && filter=(--filter "$FILTER")
    "${lock[@]}" dotnet test "$p" -c Release --no-build "${filter[@]}" --logger "trx;LogFileName=$out/run$run-$name.trx" \
      --logger "console;verbosity=normal" > "$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    hog_secs=$(( $(cat "$out/hog-seconds" 2>/dev/null || echo 0) - hog_start ))
    # The console logger's closing block: "Total tests: N", "Passed: N", "Failed: N", "Skipped: N" (zeros left out).
    counts=$(awk '/^Total tests:/{t=$3} /^ +Passed:/{p=$2} /^ +Failed:/{f=$2} /^ +Skipped:/{s=$2}
      END{if (t!="") printf "total %d, passed %d, failed %d, skipped %d", t, p, f, s}' "$log")
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    line="run $run $name: exit $rc, ${secs} s (hogs running ${hog_secs} s of it), ${counts:-no summary}, load $load"
    echo "$line" | tee -a "$summary"
    grep -E "^\s+Failed [A-Za-z_.]+" "$log" | sed 's/^\s*/   /' | tee -a "$summary"
    [ $rc -ne 0 ] && run_ok=0
  done
  if [ $run_ok = 1 ]; then passed=$((passed+1)); else failed=$((failed+1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
