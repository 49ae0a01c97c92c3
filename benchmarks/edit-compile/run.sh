#!/usr/bin/env bash
# The edit-compile loop of an application using the whole FIX.4.4 typed API, as a user has it (packages from a local
# feed), against the same edit in a console app that does not reference FixEngine:
#   plain     a console app, no FixEngine
#   prebuilt  the app references FixEngine.Messages.FIX44 (every FIX.4.4 message, prebuilt)
#   project   the app references a class library (the messages-project pattern) generating every FIX.4.4 message from
#             FIX44.xml with the FixEngine package's generator
#   inapp     for comparison: the app generates every FIX.4.4 message itself (AdditionalFiles in the app's project)
# Each loop step is a one-line edit of Program.cs (a string literal changes) and `dotnet build -c Release --no-restore`,
# timed (wall clock). The build server stays warm (as in an IDE session or a terminal loop).
#
# Usage:
#   benchmarks/edit-compile/run.sh setup <dir>            packs the packages, creates and builds the four apps once
#   bash /work/quiet.sh benchmarks/edit-compile/run.sh measure <dir> [runs]   the timed edits (default 7 per app,
#                                                         interleaved app by app), then one build per app with
#                                                         -p:ReportAnalyzer=true for the generator's own share
#   bash /work/quiet.sh benchmarks/edit-compile/run.sh packages <dir>   a full rebuild of each prebuilt message package
#                                                         project alone (--no-incremental --no-dependencies): what CI
#                                                         pays to build them
#   bash /work/quiet.sh benchmarks/edit-compile/run.sh dictionary <dir> [runs]   an edit of the dictionary in the
#                                                         messages project: the rebuild and the generator's share
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
mode=${1:?setup or measure}
dir=$(mkdir -p "${2:?directory}" && cd "$2" && pwd)
apps=(plain prebuilt project inapp)

program() { # program <app> <uses FixEngine?>
  if [ "$2" = yes ]; then
    cat <<EOF
using System;
using FixEngine.Codec;
using $3;

// Types from across FIX.4.4, so the app really compiles against the whole generated API.
Console.WriteLine("edit 0");
Console.WriteLine(NewOrderSingle.MsgType.Length + ExecutionReport.MsgType.Length + MarketDataSnapshotFullRefresh.MsgType.Length
    + (int)Side.Buy + Tags.ClOrdID + (int)OrdStatus.Filled + Groups.NoPartyIDs.Definition.CountTag);
var buffer = new byte[256];
var w = new FixWriter(buffer);
w.Begin("FIX.4.4"u8, NewOrderSingle.MsgType);
NewOrderSingle.Begin(ref w).ClOrdID("1"u8).Side(Side.Buy).TransactTime(FixTimestamp.UtcNow).OrdType(OrdType.Market).End();
Console.WriteLine(w.TryFinish(out int length) ? length : -1);
EOF
  else
    cat <<EOF
using System;

Console.WriteLine("edit 0");
var buffer = new byte[256];
Console.WriteLine(buffer.Length);
EOF
  fi
}

if [ "$mode" = setup ]; then
  version="0.1.0-edit.$(date +%s)"
  mkdir -p "$dir/feed"
  for p in src/FixEngine src/Messages/FixEngine.Messages.FIX44; do
    dotnet build "$p" -c Release >/dev/null
    dotnet pack "$p" -c Release --no-build -p:PackageVersion="$version" -o "$dir/feed" >/dev/null
  done
  cat > "$dir/nuget.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration><packageSources><add key="fixengine-local" value="$dir/feed" /></packageSources></configuration>
XML
  cp "$root/dictionaries/FIX44.xml" "$dir/FIX44.xml"
  proj() { # proj <name> <item xml>
    mkdir -p "$dir/$1"
    cat > "$dir/$1/$1.csproj" <<EOF
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net10.0</TargetFramework><Nullable>enable</Nullable></PropertyGroup>
  <ItemGroup>$2</ItemGroup>
</Project>
EOF
  }
  proj plain ""
  program plain no > "$dir/plain/Program.cs"
  proj prebuilt "<PackageReference Include=\"FixEngine.Messages.FIX44\" Version=\"$version\" />"
  program prebuilt yes FixEngine.Messages.Fix44 > "$dir/prebuilt/Program.cs"
  mkdir -p "$dir/project.Messages"
  cat > "$dir/project.Messages/project.Messages.csproj" <<EOF
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net10.0</TargetFramework><Nullable>enable</Nullable></PropertyGroup>
  <ItemGroup>
    <PackageReference Include="FixEngine" Version="$version" />
    <AdditionalFiles Include="../FIX44.xml" FixDictionary="true" FixNamespace="Venue.Fix44" />
  </ItemGroup>
</Project>
EOF
  proj project "<ProjectReference Include=\"../project.Messages/project.Messages.csproj\" />"
  program project yes Venue.Fix44 > "$dir/project/Program.cs"
  proj inapp "<PackageReference Include=\"FixEngine\" Version=\"$version\" /><AdditionalFiles Include=\"../FIX44.xml\" FixDictionary=\"true\" />"
  program inapp yes FixMessages.Fix44 > "$dir/inapp/Program.cs"
  echo "$version" > "$dir/version"
  for a in "${apps[@]}"; do
    dotnet build "$dir/$a" -c Release 2>&1 | tail -n 3
    dotnet "$dir/$a/bin/Release/net10.0/$a.dll" | tail -n 1
  done
  exit 0
fi

if [ "$mode" = packages ]; then
  dotnet build src/FixEngine -c Release >/dev/null   # the core built, each package restored
  for p in src/Messages/FixEngine.Messages.*/; do dotnet restore "$p" >/dev/null; done
  echo "package,seconds" > "$dir/packages.csv"
  for p in src/Messages/FixEngine.Messages.*/; do
    start=$(date +%s.%N)
    dotnet build "$p" -c Release --no-incremental --no-dependencies >/dev/null
    end=$(date +%s.%N)
    echo "$(basename "$p"),$(echo "$end - $start" | bc)" | tee -a "$dir/packages.csv"
  done
  exit 0
fi

if [ "$mode" = dictionary ]; then
  # An edit of the venue's dictionary in the messages project (an XML comment appended: the generator's input changes,
  # so it runs again and the library recompiles), then a build of the app with -p:ReportAnalyzer=true: the whole
  # rebuild against the generator's own execution time.
  runs=${3:-3}
  echo "run,seconds,generator_seconds" > "$dir/dictionary.csv"
  dotnet build "$dir/project" -c Release --no-restore >/dev/null
  for i in $(seq 1 "$runs"); do
    echo "<!-- edit $i -->" >> "$dir/FIX44.xml"
    start=$(date +%s.%N)
    dotnet build "$dir/project" -c Release --no-restore -p:ReportAnalyzer=true -v:d > "$dir/dictionary.build.log" 2>&1 || { tail -n 30 "$dir/dictionary.build.log"; exit 1; }
    end=$(date +%s.%N)
    gen=$(grep -E "^ *[0-9.]+ +[0-9]+ +FixEngine.Generators.FixDictionaryGenerator" "$dir/dictionary.build.log" | awk '{print $1}' | sort -n | tail -n 1)
    echo "$i,$(echo "$end - $start" | bc),$gen" | tee -a "$dir/dictionary.csv"
  done
  exit 0
fi

runs=${3:-7}
out=$dir/times.csv
echo "app,run,seconds" > "$out"
for a in "${apps[@]}"; do dotnet build "$dir/$a" -c Release --no-restore >/dev/null; done   # warm build server, all up to date
for i in $(seq 1 "$runs"); do
  for a in "${apps[@]}"; do
    sed -i -E "s/edit [0-9]+/edit $i/" "$dir/$a/Program.cs"
    start=$(date +%s.%N)
    dotnet build "$dir/$a" -c Release --no-restore >"$dir/$a.build.log" 2>&1 || { cat "$dir/$a.build.log"; exit 1; }
    end=$(date +%s.%N)
    echo "$a,$i,$(echo "$end - $start" | bc)" >> "$out"
  done
done
echo "== seconds per edit-build (median of $runs)"
for a in "${apps[@]}"; do
  printf '%-9s %s\n' "$a" "$(grep "^$a," "$out" | cut -d, -f3 | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')"
done
echo "== raw: $out"; cat "$out"
echo "== the generator's own share (one more edit-build each, -p:ReportAnalyzer=true)"
for a in project inapp; do
  sed -i -E "s/edit [0-9]+/edit 99/" "$dir/$a/Program.cs"
  dotnet build "$dir/$a" -c Release --no-restore -p:ReportAnalyzer=true -v:d > "$dir/$a.analyzers.log" 2>&1
  echo "-- $a:"; grep -E "Total (analyzer|generator) execution time|FixEngine.Generators.FixDictionaryGenerator" "$dir/$a.analyzers.log" | sed 's/^ *//' | sort -u | head -n 6
done
