#!/usr/bin/env bash
# Re-asks QuickFIX C++ every case of tests/FixEngine.Tests/Session/QuickFixValidationCases.txt and prints the cases
# whose recorded QuickFIX answer (after "=>") differs from what the library says now. Exit 1 when any differs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cases="$repo/tests/FixEngine.Tests/Session/QuickFixValidationCases.txt"
probe="$(bash "$here/build.sh" | tail -1)"
grep -v '^\s*\(#\|$\)' "$cases" > "$here/build/cases.txt"
"$probe" "$repo/dictionaries" < "$here/build/cases.txt" > "$here/build/answers.txt"
paste -d'\t' "$here/build/answers.txt" "$here/build/cases.txt" | awk -F'\t' '
  { split($2, parts, " => "); split(parts[2], rec, " ; "); sub(/ *#.*/, "", rec[1]); n++
    if (rec[1] != $1) { bad++; print "differs: quickfix says \"" $1 "\", recorded \"" rec[1] "\": " $2 } }
  END { print n " cases, " bad+0 " differ"; exit bad > 0 }'
