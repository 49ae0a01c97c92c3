#!/usr/bin/env bash
# FIX session acceptance suite: builds the sample acceptor, starts it in --at mode (QuickFIX's test
# application) with one session per version on one port (ISLD and TW40 FIX.4.0, TW41 FIX.4.1, TW42 FIX.4.2,
# TW43 FIX.4.3, TW44 FIX.4.4, and FIXT.1.1 with TW50 FIX.5.0, TW50SP1 FIX.5.0SP1, TW50SP2 FIX.5.0SP2, and TW50MIX
# FIX.5.0SP2 with a FIX.4.4 dictionary for ApplVerID 6), runs
# ../shared/fix-at/run_at.py in strict mode (QuickFIX C++'s own comparison: every field, in order) over QuickFIX's definitions/fix42 and this repository's own
# scenarios for every other version (tests/acceptance/<version>), in one run, stops the acceptor, prints the
# runner's output (ending with one "N passed, N failed" line) and exits non-zero on failure.
# Usage: .ci/acceptance.sh [extra run_at.py args, e.g. -k 2b --verbose]
# AT_ACCEPTOR=quickfix runs the same definitions against QuickFIX C++ itself (tests/quickfix-probe/qfat, built against
# Debian's libquickfix), to check that the scenarios expect what QuickFIX sends.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared=$(cd "$root/../shared" && pwd)
dictionaries=$root/dictionaries
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

work=$(mktemp -d)
# AT_PORT, or 0: the acceptor binds a port the system picks and prints it ("listening on port(s) P"), read back below.
port=${AT_PORT:-0}
acceptor_kind=${AT_ACCEPTOR:-fixengine}
if [ "$acceptor_kind" = quickfix ] && [ "$port" = 0 ]; then
  # QuickFIX needs a port number: one the system has just handed out and released.
  port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
fi
cat > "$work/at.cfg" <<CFG
[DEFAULT]
ConnectionType=acceptor
SocketAcceptPort=$port
SocketReuseAddress=Y
StartTime=00:00:00
EndTime=00:00:00
SenderCompID=ISLD
ResetOnLogon=Y
UseDataDictionary=Y
CheckLatency=Y
MaxLatency=120
ValidateFieldsOutOfOrder=Y
ValidateFieldsHaveValues=Y
ValidateUserDefinedFields=Y
FileStorePath=$work/store
FileLogPath=$work/log

[SESSION]
BeginString=FIX.4.0
TargetCompID=TW40
DataDictionary=$dictionaries/FIX40.xml

[SESSION]
BeginString=FIX.4.1
TargetCompID=TW41
DataDictionary=$dictionaries/FIX41.xml

[SESSION]
BeginString=FIX.4.2
TargetCompID=TW42
DataDictionary=$dictionaries/FIX42.xml

[SESSION]
BeginString=FIX.4.3
TargetCompID=TW43
DataDictionary=$dictionaries/FIX43.xml

[SESSION]
BeginString=FIX.4.4
TargetCompID=TW44
DataDictionary=$dictionaries/FIX44.xml

[SESSION]
BeginString=FIXT.1.1
TargetCompID=TW50
DefaultApplVerID=FIX.5.0
TransportDataDictionary=$dictionaries/FIXT11.xml
AppDataDictionary=$dictionaries/FIX50.xml

[SESSION]
BeginString=FIXT.1.1
TargetCompID=TW50SP1
DefaultApplVerID=FIX.5.0SP1
TransportDataDictionary=$dictionaries/FIXT11.xml
AppDataDictionary=$dictionaries/FIX50SP1.xml

[SESSION]
BeginString=FIXT.1.1
TargetCompID=TW50SP2
DefaultApplVerID=FIX.5.0SP2
TransportDataDictionary=$dictionaries/FIXT11.xml
AppDataDictionary=$dictionaries/FIX50SP2.xml

[SESSION]
BeginString=FIXT.1.1
TargetCompID=TW50MIX
DefaultApplVerID=FIX.5.0SP2
TransportDataDictionary=$dictionaries/FIXT11.xml
AppDataDictionary=$dictionaries/FIX50SP2.xml
AppDataDictionary.FIX.4.4=$dictionaries/FIX44.xml
CFG

if [ "$acceptor_kind" = quickfix ]; then
  if ! qfat_dir=$(bash tests/quickfix-probe/build.sh 2> "$work/build.log" | tail -n 1); then
    tail -n 20 "$work/build.log"; echo "qfat build failed"; echo "0 passed, 1 failed"; exit 1
  fi
  "$(dirname "$qfat_dir")/qfat" "$work/at.cfg" > "$work/acceptor.out" 2>&1 &
  acceptor=$!
else
  if ! dotnet build samples/Acceptor/Acceptor.csproj -c Release > "$work/build.log" 2>&1; then
    tail -n 20 "$work/build.log"; echo "acceptor build failed"; echo "0 passed, 1 failed"; exit 1
  fi
  dll=$(ls samples/Acceptor/bin/Release/*/Acceptor.dll | head -n 1)
  dotnet "$dll" --at "$work/at.cfg" > "$work/acceptor.out" 2>&1 &
  acceptor=$!
fi
cleanup() { kill "$acceptor" 2>/dev/null; wait "$acceptor" 2>/dev/null; }
trap cleanup EXIT

for _ in $(seq 1 100); do
  if [ "$port" = 0 ]; then
    port=$(sed -n 's/^\[acceptor\] listening on port(s) \([0-9]*\).*/\1/p' "$work/acceptor.out" | head -n 1)
    port=${port:-0}
  fi
  if [ "$port" != 0 ] && python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(0 if s.connect_ex(('127.0.0.1',$port))==0 else 1)"; then break; fi
  if ! kill -0 "$acceptor" 2>/dev/null; then cat "$work/acceptor.out"; echo "acceptor exited"; echo "0 passed, 1 failed"; exit 1; fi
  sleep 0.1
done

python3 "$shared/fix-at/run_at.py" --port "$port" --mode strict "$@" "$shared/fix-at/definitions/fix42" \
  "$root"/tests/acceptance/fix40 "$root"/tests/acceptance/fix41 "$root"/tests/acceptance/fix43 "$root"/tests/acceptance/fix44 \
  "$root"/tests/acceptance/fix50 "$root"/tests/acceptance/fix50sp1 "$root"/tests/acceptance/fix50sp2 \
  "$root"/tests/acceptance/fixt-multi
status=$?
cleanup
trap - EXIT
[ -n "${AT_KEEP:-}" ] && echo "acceptor output and logs kept in $work"
exit $status
