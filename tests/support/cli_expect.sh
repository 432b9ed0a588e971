# Shared helpers for the CLI shell tests; source it after setting `work` (the test's scratch
# directory) and `failures=0`.

fail() {
  echo "FAIL $1"
  [[ -f $work/stderr ]] && sed 's/^/     stderr: /' "$work/stderr" | head -20
  [[ -f $work/stdout ]] && sed 's/^/     stdout: /' "$work/stdout" | head -40
  failures=$((failures + 1))
}

# expect NAME WANTED_EXIT STREAM TEXT COMMAND...: passes when COMMAND exits WANTED_EXIT and its
# STREAM (stdout or stderr) holds TEXT (a fixed string; empty TEXT checks the exit code only).
expect() {
  local name=$1 wanted_exit=$2 stream=$3 text=$4
  shift 4
  "$@" >"$work/stdout" 2>"$work/stderr"
  local exit_code=$?
  if [[ $exit_code -ne $wanted_exit ]]; then
    fail "$name: exit $exit_code, wanted $wanted_exit: $*"
  elif [[ -n $text ]] && ! grep -qF -- "$text" "$work/$stream"; then
    fail "$name: $stream lacks \"$text\": $*"
  else
    echo "ok   $name"
  fi
}

# The one run directory a `bench run --artifacts-dir DIR` made.
run_dir_in() { find "$1/runs" -mindepth 1 -maxdepth 1 -type d | head -n 1; }
