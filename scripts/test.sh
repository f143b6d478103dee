#!/usr/bin/env bash
# Runs the whole test suite on the embedded PGlite, then again on a PostgreSQL server
# (MERIDIAN_TEST_POSTGRES_URL, default the local server's database `test`) the test files whose
# imports reach the database (scripts/database-tests.mjs): the others cannot tell the two apart.
# Redis is expected at MERIDIAN_TEST_REDIS_URL (default redis://127.0.0.1:6379). Extra arguments select test files;
# MERIDIAN_TEST_CONCURRENCY sets how many files run at once (default 2).
#
# After each pass the slowest test files are listed (scripts/test-summary.mjs); the failed tests of
# both passes, with their places and messages, are listed again at the very end.
# Every skipped test is listed with its reason. The only skips a pass may have are tests written
# for the other database (reason `needs PostgreSQL…` or `PGlite only…`); any other skip fails the
# run: setup installs every peer tool the tests compare with (ecCodes, PROJ, Chromium, the GRIB
# examples), so a skip would only hide coverage that was lost.
set -uo pipefail
cd "$(dirname "$0")/.."

postgres=${MERIDIAN_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
# Test files run two at a time (each in its own process): most of a file's time is one core's work,
# or waiting for a child process, a browser or a server, so two cores finish the suite in about
# half the time. Tests assert behaviour, not wall-clock bounds, so the extra load changes no result.
concurrency=${MERIDIAN_TEST_CONCURRENCY:-2}
expected_skip='^(needs PostgreSQL|PGlite only)'
if [ "$#" -gt 0 ]; then files=("$@"); else mapfile -t files < <(find dist/test -name '*.test.js' | sort); fi
if [ "${#files[@]}" -eq 0 ]; then echo "no test files found under dist/test" >&2; exit 1; fi

log=$(mktemp)
template=$(mktemp -d)
failures=$(mktemp)
trap 'rm -f "$log" "$log.tap" "$log.summary" "$failures"; rm -rf "$template"' EXIT
# One empty PGlite cluster for the run: test data directories start from copies of it (test/helpers.ts).
node scripts/pglite-template.mjs "$template/pglite" || exit 1
export MERIDIAN_TEST_PGLITE_TEMPLATE=$template/pglite
status=0
unexpected=0
database_list=$(node scripts/database-tests.mjs "${files[@]}") || exit 1
database_files=()
if [ -n "$database_list" ]; then mapfile -t database_files <<< "$database_list"; fi
for database in pglite "$postgres"; do
  shown=${database%%@*}
  shown=${shown/#postgres:\/\//PostgreSQL: }
  if [ "$database" = pglite ]; then run=("${files[@]}"); else run=("${database_files[@]}"); fi
  echo "== tests on $shown (${#run[@]} files)"
  [ "${#run[@]}" -gt 0 ] || continue
  MERIDIAN_TEST_DATABASE=$database node --test --test-concurrency="$concurrency" --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$log.tap" \
    --test-reporter=./scripts/test-summary.mjs --test-reporter-destination="$log.summary" "${run[@]}" || status=1
  cat "$log.tap" >> "$log"
  # The summary's failed tests wait for the end of the output; the rest is shown now.
  sed '/^failed tests:$/,$d' "$log.summary"
  sed -n '/^failed tests:$/,${/^failed tests:$/d;p}' "$log.summary" | sed "s/^  ✖ /  ✖ on $shown: /" >> "$failures"
  # TAP marks a skipped test `ok N - name # SKIP reason` (indented when nested).
  while IFS=$'\t' read -r name reason; do
    if [[ $reason =~ $expected_skip ]]; then
      echo "skipped on $shown: $name ($reason)"
    else
      echo "UNEXPECTED SKIP on $shown: $name (${reason:-no reason given})" >&2
      unexpected=$((unexpected + 1))
    fi
  done < <(sed -nE 's/^ *ok [0-9]+ - (.*) # SKIP ?(.*)$/\1\t\2/p' "$log.tap")
done

count() { awk -v key="$1" 'index($0, "# " key " ") == 1 {s += $3} END {print s + 0}' "$log"; }
echo "tests: $(count pass) passed, $(count fail) failed, $(count cancelled) cancelled, $(count skipped) skipped"
if [ -s "$failures" ]; then echo "failed tests:"; cat "$failures"; fi
if [ "$unexpected" -gt 0 ]; then
  echo "$unexpected unexpected skip(s): a test skipped for a reason other than the database it runs on (a missing peer tool?). Run bash scripts/setup.sh --dev." >&2
  status=1
fi
exit $status
