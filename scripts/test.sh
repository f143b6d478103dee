#!/usr/bin/env bash
# Runs the whole test suite twice: on the embedded PGlite and on a PostgreSQL server
# (MERIDIAN_TEST_POSTGRES_URL, default the local server's database `test`). Redis is expected at
# MERIDIAN_TEST_REDIS_URL (default redis://127.0.0.1:6379). Extra arguments select test files.
set -uo pipefail
cd "$(dirname "$0")/.."

postgres=${MERIDIAN_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
if [ "$#" -gt 0 ]; then files=("$@"); else mapfile -t files < <(find dist/test -name '*.test.js' | sort); fi
if [ "${#files[@]}" -eq 0 ]; then echo "no test files found under dist/test" >&2; exit 1; fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for database in pglite "$postgres"; do
  shown=${database%%@*}
  echo "== tests on ${shown/#postgres:\/\//PostgreSQL: }"
  MERIDIAN_TEST_DATABASE=$database node --test --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$log.tap" "${files[@]}" || status=1
  cat "$log.tap" >> "$log"
done

passed=$(awk '/^# pass /{s+=$3} END{print s+0}' "$log")
failed=$(awk '/^# fail /{s+=$3} END{print s+0}' "$log")
skipped=$(awk '/^# skipped /{s+=$3} END{print s+0}' "$log")
rm -f "$log.tap"
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit $status
