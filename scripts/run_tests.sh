#!/usr/bin/env bash
# Set up, build, then run every test: lit (fly-opt + FileCheck) over
# test/lit, pytest over test/python, and the pip install path
# (scripts/test_pip.sh). Runs every suite even when one fails,
# prints a summary with timings and counts, and exits non-zero when the build
# or any test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
LIT=/usr/lib/llvm-22/bin/lit    # the lit of LLVM 22, beside its FileCheck
RESULTS=build/test-results      # JUnit XML of each suite, read for the counts

summary=()
failed=0
# step NAME COMMAND...: run the command, time it, record the outcome.
step() {
  local name=$1 start seconds rc=0
  shift
  echo "=== $name: $*"
  start=$(date +%s.%N)
  "$@" || rc=$?
  seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  if [ "$rc" -eq 0 ]; then
    summary+=("$(printf '%-7s ok      %6ss' "$name" "$seconds")")
  else
    summary+=("$(printf '%-7s FAILED  %6ss  (exit %d)' "$name" "$seconds" "$rc")")
    failed=1
  fi
}

# Counts over the JUnit files: "total: N passed, N failed, N skipped".
count_tests() {
  "$PYTHON" - "$RESULTS"/*.xml <<'EOF'
import sys
import xml.etree.ElementTree as ET
passed = failed = skipped = 0
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    for suite in suites:
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skip = int(suite.get("skipped", 0))
        passed += int(suite.get("tests", 0)) - bad - skip
        failed += bad
        skipped += skip
print(f"total: {passed} passed, {failed} failed, {skipped} skipped")
EOF
}

# pytest exits 5 when it collects no test at all: that is a failure too.
run_pytest() {
  "$PYTHON" -m pytest -q --junitxml "$RESULTS/pytest.xml" test/python
}

rm -rf "$RESULTS"
step build bash scripts/build.sh
if [ "$failed" -eq 0 ]; then
  mkdir -p "$RESULTS"
  # lit reads build/test/lit/lit.site.cfg.py, written by CMake from
  # test/lit/lit.site.cfg.py.in; the tests themselves stay in test/lit.
  step lit "$LIT" -sv --no-progress-bar --xunit-xml-output "$RESULTS/lit.xml" build/test/lit
  step pytest run_pytest
  # pip wheel / install / install -e / uninstall in fresh venvs (its own
  # CMake build, in build-pip/).
  step pip bash scripts/test_pip.sh
fi

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
if compgen -G "$RESULTS/*.xml" >/dev/null; then count_tests; fi
exit "$failed"
