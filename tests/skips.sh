#!/bin/sh
# cargo's runner for this repository (.cargo/config.toml). A test binary (under target/*/deps/)
# runs with DWPIPE_TEST_SKIPS naming a file each test that skips writes its name and reason to
# (tests/it/support: `skipped!`); after the binary's own summary the skips are counted and
# named, and the binary's exit status is kept. Anything else is exec'd untouched.
case "$1" in
  */deps/*) ;;
  *) exec "$@" ;;
esac
skips=$(mktemp "${TMPDIR:-/tmp}/dwpipe-skips.XXXXXX") || exec "$@"
DWPIPE_TEST_SKIPS=$skips "$@"
status=$?
if [ -s "$skips" ]; then
  # A test that asks for a component twice is one skip.
  sort -u "$skips" -o "$skips"
  count=$(sed 's/: .*//' "$skips" | sort -u | wc -l | tr -d ' ')
  echo
  echo "skipped: $count test(s) did not run what they test (each shown as ok above):"
  sed 's/^/  /' "$skips"
  echo "  (README, Tests: which suite needs which component, and how .ci/run brings it)"
fi
rm -f "$skips"
exit $status
