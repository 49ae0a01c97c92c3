#!/usr/bin/env bash
# Standby takeover after a SIGKILL of the primary acceptor, PostgreSQL store (docs/benchmarks/2026-12-06-standby-takeover.md).
# Starts a throwaway PostgreSQL with its durable defaults (.ci/postgres.sh, FIXENGINE_PG_DURABLE=1; installs the Debian
# package if missing) unless FIXENGINE_TEST_POSTGRES is already set, builds the benchmark harness, then runs
# `standby-takeover`: per run a primary acceptor process, this harness's initiator sending orders at a steady rate, a
# SIGKILL of the primary, a standby process started at once on the same settings; it prints the time from the kill to
# the standby listening, to the initiator's Logon being answered and to its first ExecutionReport after the takeover,
# how far behind the counterparty the standby opened, refused Logons, lost and doubly answered orders, then the medians,
# with and without the counterparty sending NextExpectedMsgSeqNum(789). Timed: run it on a quiet machine.
# Usage: benchmarks/standby-takeover/run.sh [--no-build] [standby-takeover options: --runs 5 --rate 500 --before 5
#        --after 5 --lease 10 --sync GroupCommit --next-expected both|Y|N --work DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
build=1
if [ "${1:-}" = "--no-build" ]; then build=0; shift; fi
if [ -z "${FIXENGINE_TEST_POSTGRES:-}" ]; then
  source .ci/postgres.sh
  trap pg_stop EXIT
  FIXENGINE_PG_DURABLE=1 pg_start || exit 1
fi
if [ $build = 1 ]; then
  dotnet build benchmarks/FixEngine.Benchmarks -c Release 2>&1 | tail -n 3
fi
dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll standby-takeover "$@"
