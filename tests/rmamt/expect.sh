#!/usr/bin/env bash
# expect.sh RC REGEX -- CMD...: CMD must exit with status RC and print (stdout
# or stderr) a line matching REGEX.  Tests that rmamt fails the right way.
set -uo pipefail
want_rc=$1 regex=$2; shift 2
[[ $1 == -- ]] && shift
out=$("$@" 2>&1)
rc=$?
if [[ $rc != "$want_rc" ]] || ! grep -Eq -- "$regex" <<<"$out"; then
  echo "expected exit $want_rc and /$regex/, got exit $rc:"
  echo "$out" | head -30
  exit 1
fi
echo "ok: exit $rc, $(grep -Em1 -- "$regex" <<<"$out")"
