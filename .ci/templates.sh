#!/usr/bin/env bash
# The dotnet new templates as a user gets them: packs FixEngine, FixEngine.Extensions.Hosting, the prebuilt
# FixEngine.Messages.FIX44 and FixEngine.Templates (under a version of their own, so no package cached from an earlier
# run is used) into a local feed in a temporary directory, installs the template package into a private template hive,
# instantiates each template there, builds each against the local feed, then runs the initiator against the acceptor
# and against the hosted acceptor (a real logon, one order, its fill, a logout). Each step prints PASS or FAIL and the
# script ends with one "N passed, N failed" line. Exits non-zero on failure.
# Usage: .ci/templates.sh [--all-messages]   (--all-messages also builds and packs the eight other prebuilt message
# packages, FIX.4.0 to FIX.5.0SP2 and FIXT.1.1, which the main solution does not build)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

tmp=$(mktemp -d)
version="0.1.0-ci.$(date +%s)"
feed=$tmp/feed hive=$tmp/hive work=$tmp/work
mkdir -p "$feed" "$work"
passed=0 failed=0
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
  # The packages restored under this run's version, from the global package cache.
  for d in "${NUGET_PACKAGES:-$HOME/.nuget/packages}"/fixengine*/"$version"; do [ -d "$d" ] && rm -rf "$d"; done
}
trap cleanup EXIT
ok() { echo "PASS $1"; passed=$((passed+1)); }
ko() { echo "FAIL $1"; [ -n "${2:-}" ] && tail -n "${3:-30}" "$2" | sed 's/^/    /'; failed=$((failed+1)); }
step() { # step <name> <log> <command...>
  local name=$1 log=$2; shift 2
  if "$@" >"$log" 2>&1; then ok "$name"; return 0; else ko "$name" "$log"; return 1; fi
}

packages=(src/FixEngine src/FixEngine.Extensions.Hosting src/Messages/FixEngine.Messages.FIX44 src/FixEngine.Templates)
if [ "${1:-}" = "--all-messages" ]; then
  for d in src/Messages/FixEngine.Messages.*; do [ "$d" != src/Messages/FixEngine.Messages.FIX44 ] && packages+=("$d"); done
fi
echo "== pack ${#packages[@]} packages as $version into $feed"
for p in "${packages[@]}"; do
  name=$(basename "$p")
  # Built first (a no-op after the solution build), then packed from that build under this run's version.
  step "pack $name" "$tmp/pack-$name.log" bash -c "dotnet build '$p' -c Release && dotnet pack '$p' -c Release --no-build -p:PackageVersion=$version -o '$feed'" || { echo "$passed passed, $failed failed"; exit 1; }
done

echo "== install the templates (private hive) and instantiate them"
step "dotnet new install FixEngine.Templates" "$tmp/install.log" \
  dotnet new install "$feed/FixEngine.Templates.$version.nupkg" --debug:custom-hive "$hive" || { echo "$passed passed, $failed failed"; exit 1; }
cat > "$work/nuget.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="fixengine-local" value="$feed" />
  </packageSources>
</configuration>
XML
# The acceptors listen on port 0 (the system picks a free port as they bind; nothing probes a port that another program
# could take before it is bound) and report it: the acceptor prints "listening on port(s) P", the hosted one logs
# "acceptor port(s) [P]". The initiator is built for port 5001 and its initiator.cfg is pointed at the reported port.
declare -A args=([acceptor]="--port 0" [initiator]="--port 5001" [hosted]="--port 0" [messages]="")
for t in acceptor initiator hosted messages; do
  name="My${t^}"
  [ "$t" = messages ] && name="My.Venue.Messages"
  # shellcheck disable=SC2086
  if step "dotnet new fixengine-$t" "$tmp/new-$t.log" dotnet new "fixengine-$t" -n "$name" -o "$work/$name" ${args[$t]} --fixEngineVersion "$version" --debug:custom-hive "$hive"; then
    step "build fixengine-$t" "$tmp/build-$t.log" dotnet build "$work/$name" -c Release
  fi
done

# run_pair <acceptor name> <acceptor log> <command that starts the acceptor...>: starts it, runs the initiator against
# it, stops it with SIGTERM and checks that it stopped cleanly.
run_pair() {
  local label=$1 log=$2; shift 2
  rm -rf "$work/MyInitiator/bin/Release/net10.0/store"   # a fresh initiator store: each acceptor starts at 1
  "$@" >"$log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  local i=0 port=""
  until port=$(sed -n 's/.*listening on port(s) \([0-9][0-9]*\).*/\1/p; s/.*acceptor port(s) \[\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1) && [ -n "$port" ]; do
    i=$((i+1)); if [ $i -gt 120 ] || ! kill -0 "$pid" 2>/dev/null; then ko "$label reports the port it listens on" "$log"; kill "$pid" 2>/dev/null; return; fi; sleep 0.5
  done
  echo "   $label listens on port $port"
  sed -i "s/^SocketConnectPort=.*/SocketConnectPort=$port/" "$work/MyInitiator/bin/Release/net10.0/initiator.cfg"
  if timeout 90 dotnet "$work/MyInitiator/bin/Release/net10.0/MyInitiator.dll" >"$tmp/initiator-$label.log" 2>&1 \
      && grep -q "^filled: ORDER-1 100 EUR/USD at 1.0852" "$tmp/initiator-$label.log"; then
    ok "initiator logs on to $label, sends an order and gets its fill"
  else
    ko "initiator logs on to $label, sends an order and gets its fill" "$tmp/initiator-$label.log"; tail -n 20 "$log" | sed 's/^/    acceptor: /'
  fi
  kill -TERM "$pid" 2>/dev/null
  if timeout 30 tail --pid="$pid" -f /dev/null; then wait "$pid"; local rc=$?
    if [ $rc -eq 0 ]; then ok "$label stops on SIGTERM"; else ko "$label stops on SIGTERM (exit $rc)" "$log"; fi
  else
    kill -KILL "$pid" 2>/dev/null; ko "$label stops on SIGTERM (still running after 30 s)" "$log"
  fi
}

echo "== run the initiator against the acceptor and the hosted acceptor"
if [ -f "$work/MyInitiator/bin/Release/net10.0/MyInitiator.dll" ]; then
  [ -f "$work/MyAcceptor/bin/Release/net10.0/MyAcceptor.dll" ] && run_pair fixengine-acceptor "$tmp/acceptor.log" dotnet "$work/MyAcceptor/bin/Release/net10.0/MyAcceptor.dll"
  [ -f "$work/MyHosted/bin/Release/net10.0/MyHosted.dll" ] && run_pair fixengine-hosted "$tmp/hosted.log" dotnet "$work/MyHosted/bin/Release/net10.0/MyHosted.dll"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
