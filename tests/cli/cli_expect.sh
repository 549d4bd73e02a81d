# Sourced by the cli_*_test.sh scripts: `expect CODE COMMAND...` runs the command with its
# output in out.txt and err.txt and fails the test, showing both, unless it exits with CODE.
expect() {
  local want=$1; shift
  set +e; "$@" >out.txt 2>err.txt; local got=$?; set -e
  if [ "$got" != "$want" ]; then
    echo "FAIL: '$*' exited $got, expected $want"; cat out.txt err.txt; exit 1
  fi
}

# `in_scratch_dir`: cd into a fresh directory that is removed when the script exits.
in_scratch_dir() {
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cd "$scratch"
}
