#!/usr/bin/env bash
# `bench list-targets`: the JSON parses and describes well-formed pairs, the text lists the same
# targets, --chapter filters (ch7 = ch07), and every registered variant pairs up (no warnings).
# Arguments: $1 the aisp binary, $2 the aisp_test_suite binary, $3 a scratch directory.
set -u

aisp=$1
suite=$2
work=$3
mkdir -p "$work"
failures=0

fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

for binary in "$aisp" "$suite"; do
  echo "--- $binary"
  if ! "$binary" bench list-targets --json >"$work/targets.json" 2>"$work/json.stderr"; then
    fail "bench list-targets --json exited non-zero"
    sed 's/^/     stderr: /' "$work/json.stderr"
    continue
  fi
  if ! python3 -c 'import json,sys; json.load(sys.stdin)' <"$work/targets.json"; then
    fail "bench list-targets --json printed something that is not JSON"
    continue
  fi
  echo "ok   --json parses"
  if [[ -s $work/json.stderr ]]; then
    fail "registration or pairing problems (every variant must pair up):"
    sed 's/^/     /' "$work/json.stderr"
  fi

  # The entries are well formed: the checks print one line per problem.
  python3 - "$work/targets.json" >"$work/shape" <<'PY'
import json, os, sys
pairs = json.load(open(sys.argv[1]))
if not isinstance(pairs, list):
    print("the JSON is not an array")
    sys.exit()
keys = {"target", "chapter", "pair", "baseline", "optimized", "baseline_source", "optimized_source"}
seen = set()
for p in pairs:
    missing = keys - set(p)
    if missing:
        print(f"{p}: missing {sorted(missing)}")
        continue
    t = p["target"]
    if t in seen:
        print(f"{t}: listed twice")
    seen.add(t)
    name = t[len(p["chapter"]) + 1:]
    if not t.startswith(p["chapter"] + ":"):
        print(f"{t}: does not start with its chapter {p['chapter']}:")
    if p["baseline"] != "baseline_" + p["pair"]:
        print(f"{t}: baseline {p['baseline']} is not baseline_{p['pair']}")
    if p["optimized"] != "optimized_" + name:
        print(f"{t}: optimized {p['optimized']} is not optimized_{name}")
    if not (name == p["pair"] or name.startswith(p["pair"] + "_")):
        print(f"{t}: {name} does not extend the pair name {p['pair']}")
    for key in ("baseline_source", "optimized_source"):
        path = p[key]
        if os.path.isabs(path) and not os.path.isfile(path):
            print(f"{t}: {key} {path} does not exist")
chapters = [p["chapter"] for p in pairs if "chapter" in p]
for i in range(1, len(chapters)):
    if chapters[i] != chapters[i - 1] and chapters[i] in chapters[:i]:
        print(f"chapter {chapters[i]} is not listed contiguously")
PY
  if [[ -s $work/shape ]]; then
    fail "malformed entries:"
    sed 's/^/     /' "$work/shape"
  else
    echo "ok   entries are well formed"
  fi

  # The text lists the same targets.
  if ! "$binary" bench list-targets >"$work/targets.txt" 2>/dev/null; then
    fail "bench list-targets exited non-zero"
  fi
  missing_from_text=0
  while read -r target; do
    if ! grep -qF -- " $target " "$work/targets.txt"; then
      fail "text output lacks $target"
      missing_from_text=1
    fi
  done < <(python3 -c 'import json,sys; [print(p["target"]) for p in json.load(sys.stdin)]' \
             <"$work/targets.json")
  [[ $missing_from_text -eq 0 ]] && echo "ok   text lists every target"

  # --chapter keeps exactly that chapter's targets, and ch7 means ch07.
  first_chapter=$(python3 -c 'import json,sys; p=json.load(sys.stdin); print(p[0]["chapter"] if p else "")' \
                    <"$work/targets.json")
  if [[ -n $first_chapter ]]; then
    "$binary" bench list-targets --json --chapter "$first_chapter" >"$work/chapter.json" 2>/dev/null
    if python3 - "$work/targets.json" "$work/chapter.json" "$first_chapter" <<'PY'
import json, sys
everything, chapter, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
sys.exit(0 if chapter == [p for p in everything if p["chapter"] == name] else 1)
PY
    then
      echo "ok   --chapter $first_chapter"
    else
      fail "--chapter $first_chapter does not list exactly that chapter's targets"
    fi
    if [[ $first_chapter =~ ^ch0([0-9])$ ]]; then
      short="ch${BASH_REMATCH[1]}"
      "$binary" bench list-targets --json --chapter "$short" >"$work/short.json" 2>/dev/null
      if cmp -s "$work/chapter.json" "$work/short.json"; then
        echo "ok   --chapter $short = --chapter $first_chapter"
      else
        fail "--chapter $short differs from --chapter $first_chapter"
      fi
    fi
  else
    echo "skip --chapter: no pairs in $binary"
  fi

  "$binary" bench list-targets --chapter ch99 >/dev/null 2>"$work/stderr"
  exit_code=$?
  if [[ $exit_code -ne 2 ]] || ! grep -qF "unknown target 'ch99'" "$work/stderr"; then
    fail "--chapter ch99: exit $exit_code (wanted 2) or no 'unknown target' message"
    sed 's/^/     stderr: /' "$work/stderr"
  else
    echo "ok   --chapter ch99 is an unknown target"
  fi
done

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
