#!/usr/bin/env bash
# Bad input to the CLI: every case must exit 2 (usage error) with a message that says what is
# allowed, before anything is run. Arguments: $1 the aisp binary, $2 the aisp_test_suite binary,
# $3 a scratch directory.
set -u

aisp=$1
suite=$2
work=$3
mkdir -p "$work"
failures=0

# expect NAME WANTED_EXIT TEXT COMMAND...: runs COMMAND; passes when it exits WANTED_EXIT and its
# stderr contains TEXT (a fixed string; empty TEXT checks the exit code only).
expect() {
  local name=$1 wanted_exit=$2 text=$3
  shift 3
  "$@" >"$work/stdout" 2>"$work/stderr"
  local exit_code=$?
  if [[ $exit_code -ne $wanted_exit ]]; then
    echo "FAIL $name: exit $exit_code, wanted $wanted_exit: $*"
  elif [[ -n $text ]] && ! grep -qF -- "$text" "$work/stderr"; then
    echo "FAIL $name: stderr lacks \"$text\": $*"
  else
    echo "ok   $name"
    return 0
  fi
  sed 's/^/     stderr: /' "$work/stderr" | head -20
  failures=$((failures + 1))
}

for binary in "$aisp" "$suite"; do
  echo "--- $binary"
  expect "no command prints help" 2 "needs a command" "$binary"
  expect "--help" 0 "" "$binary" --help
  expect "--version" 0 "" "$binary" --version
  expect "unknown command" 2 "unknown command 'frobnicate'" "$binary" frobnicate
  expect "unknown bench command" 2 "unknown command 'frobnicate'" "$binary" bench frobnicate
  expect "bench alone" 2 "needs a command" "$binary" bench
  expect "unknown flag" 2 "does not take: --no-such-flag" "$binary" bench run --no-such-flag

  expect "--max-noise 5" 2 "--max-noise 5: must be a fraction in (0, 1)" \
    "$binary" bench run --max-noise 5
  expect "--iterations -1" 2 "--iterations -1: must be an integer >= 0" \
    "$binary" bench run --iterations -1
  expect "--iterations=-1" 2 "--iterations -1: must be an integer >= 0" \
    "$binary" bench run --iterations=-1
  expect "--warmup abc" 2 "--warmup abc: must be an integer >= 0" "$binary" bench run --warmup abc
  expect "--warmup 2.5" 2 "--warmup 2.5: must be an integer" "$binary" bench run --warmup 2.5
  expect "--seed -3" 2 "--seed -3: must be an unsigned 64-bit integer" \
    "$binary" bench run --seed -3
  expect "--confidence 1.5" 2 "--confidence 1.5: must be a fraction in (0, 1)" \
    "$binary" bench run --confidence 1.5
  expect "--timeout 0" 2 "--timeout 0: must be" "$binary" bench verify --timeout 0
  expect "--min-samples 0" 2 "--min-samples 0: must be an integer >= 1" \
    "$binary" bench run --min-samples 0
  expect "--max-time nan" 2 "--max-time nan: must be" "$binary" bench run --max-time nan
  expect "--max-noise without a value" 2 "--max-noise" "$binary" bench run --max-noise
  expect "--timeout below --max-time" 2 "raise --timeout or lower --max-time" \
    "$binary" bench run --max-time 400
  expect "timing flag on verify" 2 "--max-noise is a setting of \`bench run\` only" \
    "$binary" bench verify --max-noise 0.1

  expect "unknown target" 2 "unknown target 'ch99:nothing_like_this'" \
    "$binary" bench run -t ch99:nothing_like_this
  expect "unknown target on verify" 2 "unknown target 'ch99:nothing_like_this'" \
    "$binary" bench verify -t ch99:nothing_like_this
  expect "empty target" 2 "malformed target ''" "$binary" bench run -t ''
  expect "target without name" 2 "malformed target 'ch07:'" "$binary" bench run -t ch07:
  expect "target without chapter" 2 "malformed target ':x'" "$binary" bench run -t :x
  expect "target of a folder name" 2 "write the chapter as ch07" \
    "$binary" bench run -t ch07_memory_access
  expect "--chapter given a target" 2 "not a target" \
    "$binary" bench list-targets --chapter ch07:transpose

  expect "worker: settings not JSON" 2 "not valid JSON" \
    "$binary" __worker --target ch99:x --settings-json '{bad' --out-fd 1
  expect "worker: setting out of range" 2 "--max-noise 5: must be a fraction" \
    "$binary" __worker --target ch99:x --settings-json '{"max_noise": 5}' --out-fd 1
  expect "worker: unknown setting" 2 "unknown measurement setting 'nope'" \
    "$binary" __worker --target ch99:x --settings-json '{"nope": 1}' --out-fd 1
  expect "worker: negative fd" 2 "--out-fd -1" \
    "$binary" __worker --target ch99:x --settings-json '{}' --out-fd -1

  "$binary" --help >"$work/help" 2>&1
  if grep -q "__worker\|__settings-table" "$work/help"; then
    echo "FAIL hidden commands: --help shows them"
    failures=$((failures + 1))
  else
    echo "ok   hidden commands stay out of --help"
  fi

  # A misspelled real target: one character added to the first target; the message must
  # suggest the real one. Skipped when the binary has no pairs.
  if ! "$binary" bench list-targets --json >"$work/targets.json" 2>"$work/stderr"; then
    echo "FAIL list-targets --json failed, so the misspelling case cannot run"
    failures=$((failures + 1))
    continue
  fi
  misspelled=$(python3 - "$work/targets.json" <<'PY'
import json, sys
pairs = json.load(open(sys.argv[1]))
known = {p["target"] for p in pairs} | {p["chapter"] + ":" + p["pair"] for p in pairs}
for p in pairs:
    candidate = p["target"] + "x"
    if candidate not in known:
        print(candidate + " " + p["target"])
        break
PY
)
  if [[ -z $misspelled ]]; then
    echo "skip misspelled target: no pairs in $binary"
  else
    read -r wrong right <<<"$misspelled"
    expect "misspelled target suggests $right" 2 "did you mean:" "$binary" bench run -t "$wrong"
    if ! grep -qF -- "$right" "$work/stderr"; then
      echo "FAIL misspelled target: the suggestions do not name $right"
      failures=$((failures + 1))
    fi
  fi
done

if [[ $failures -ne 0 ]]; then
  echo "$failures case(s) failed"
  exit 1
fi
echo "all cases passed"
