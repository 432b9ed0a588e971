#!/usr/bin/env bash
# docs/cli.md holds a copy of the settings table the binary renders from its descriptors
# (`aisp __settings-table`); this fails when the two differ. Arguments: $1 the aisp binary,
# $2 the aisp_test_suite binary (unused), $3 a scratch directory.
set -u

aisp=$1
work=$3
mkdir -p "$work"
docs="$(cd "$(dirname "$0")/../.." && pwd)/docs/cli.md"

if ! "$aisp" __settings-table >"$work/rendered.md" 2>"$work/stderr"; then
  echo "FAIL aisp __settings-table exited non-zero:"
  cat "$work/stderr"
  exit 1
fi
sed -n '/<!-- settings-table:begin -->/,/<!-- settings-table:end -->/p' "$docs" |
  sed '1d;$d' >"$work/documented.md"
if ! [[ -s $work/documented.md ]]; then
  echo "FAIL $docs has no table between <!-- settings-table:begin --> and <!-- settings-table:end -->"
  exit 1
fi
if ! diff -u "$work/documented.md" "$work/rendered.md"; then
  echo "FAIL the settings table in $docs differs from \`aisp __settings-table\` (diff above:"
  echo "     - docs, + binary); replace the lines between the markers with that command's output"
  exit 1
fi
echo "ok   docs/cli.md's settings table matches the binary's"
