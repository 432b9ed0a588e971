#!/usr/bin/env bash
# report.html in a real browser: headless Chromium loads the report of the H200 fixture run
# (tests/data/run_h200_ch01) and of a fresh run with failed pairs, offline. Passes when the page's
# script marks <body data-rendered="ok"> (every chart laid out with the marks it declares), no
# script error reaches the console, and a screenshot comes out as a PNG.
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
# Exit 77 (ctest: skipped) when no Chromium is installed; CI installs it (AISP_WITH_BROWSER=1
# scripts/install-deps.sh).
set -u

aisp=$1
suite=$2
work=$3

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$(command -v "$candidate")
    break
  fi
done
if [[ -z $browser ]]; then
  echo "SKIP: no Chromium found (looked for chromium, chromium-browser, google-chrome)."
  echo "      Install it with: AISP_WITH_BROWSER=1 bash scripts/install-deps.sh"
  exit 77
fi

fixture="$(cd "$(dirname "$0")/../data/run_h200_ch01" && pwd)"
rm -rf "$work"
mkdir -p "$work"
failures=0
fail() {
  echo "FAIL $1"
  failures=$((failures + 1))
}

# Everything that could reach the network or a user profile is off: the page must render from
# the file alone.
browser_flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --disable-extensions --disable-default-apps --disable-dev-shm-usage --user-data-dir="$work/profile"
  --enable-logging=stderr --v=0)

# check_page NAME FILE: loads FILE, dumps the DOM after its script ran, checks the marker and
# the console.
check_page() {
  local name=$1 page=$2
  timeout 120 "$browser" "${browser_flags[@]}" --dump-dom "file://$page" \
    >"$work/$name.dom.html" 2>"$work/$name.stderr"
  local exit_code=$?
  if [[ $exit_code -ne 0 ]]; then
    fail "$name: $browser exited $exit_code"
    sed 's/^/     stderr: /' "$work/$name.stderr" | tail -20
    return
  fi
  local rendered
  rendered=$(grep -o 'data-rendered="[^"]*"' "$work/$name.dom.html" | head -n 1)
  if [[ $rendered != 'data-rendered="ok"' ]]; then
    fail "$name: the page's script did not finish drawing: ${rendered:-no data-rendered attribute}"
  else
    echo "ok   $name: $rendered, $(grep -o 'data-charts="[0-9]*"' "$work/$name.dom.html")"
  fi
  if grep -q "Uncaught" "$work/$name.stderr"; then
    fail "$name: a script error reached the console:"
    grep "Uncaught" "$work/$name.stderr" | sed 's/^/     /' | head -10
  else
    echo "ok   $name: no script error on the console"
  fi
}

cp -r "$fixture" "$work/h200_run"
if ! "$aisp" bench report "$work/h200_run" >"$work/report.stdout" 2>&1; then
  fail "bench report of the fixture run"
  cat "$work/report.stdout"
fi
check_page fixture "$work/h200_run/report.html"

timeout 120 "$browser" "${browser_flags[@]}" --hide-scrollbars --window-size=1400,2000 \
  --screenshot="$work/report.png" "file://$work/h200_run/report.html" \
  >"$work/screenshot.stdout" 2>&1
if [[ -s $work/report.png ]] && [[ $(head -c 8 "$work/report.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; then
  echo "ok   screenshot: $work/report.png"
else
  fail "no PNG screenshot at $work/report.png"
  tail -20 "$work/screenshot.stdout"
fi

# A fresh run with a crash and a wrong answer beside an honest pair: failed pairs render too.
"$suite" bench run -t ch90:affine -t ch90:crash -t ch90:wrong --min-time 0.05 \
  --artifacts-dir "$work/artifacts" >"$work/run.stdout" 2>&1
run_dir=$(find "$work/artifacts/runs" -mindepth 1 -maxdepth 1 -type d | head -n 1)
if [[ -z $run_dir ]] || ! "$aisp" bench report "$run_dir" >"$work/report.stdout" 2>&1; then
  fail "bench report of a run with failed pairs"
  cat "$work/run.stdout" "$work/report.stdout" 2>/dev/null | tail -20
else
  check_page failed_pairs "$run_dir/report.html"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "the report renders in $browser"
