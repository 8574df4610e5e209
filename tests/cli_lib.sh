# cli_lib.sh — helpers of the CLI tests (cli.sh, mesh_cli.sh, field_io_cli.sh, the tools' tests
# same_kernels_cli.sh and kernel_ab_cli.sh, ...), sourced after they set $pillar (the binary). Sets fail=0 (a failed check sets it to 1: the script's exit
# status) and $tmp, a scratch directory removed on exit.
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check_last WHAT : right after a command, fails the test with WHAT if that command failed
check_last() {
    if [ $? -ne 0 ]; then
        echo "FAIL: $1"; fail=1
    fi
}

# expect_error NEEDLE ARGS... : non-zero exit below 128 (no signal) and NEEDLE in stderr
expect_error() {
    needle=$1; shift
    "$pillar" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then
        echo "FAIL: pillar $* exited $rc (want a non-zero exit, no crash)"; fail=1
    elif ! grep -qF -- "$needle" "$tmp/err"; then
        echo "FAIL: pillar $*: message does not name '$needle':"; cat "$tmp/err"; fail=1
    else
        echo "ok: pillar $* -> $(head -n1 "$tmp/err")"
    fi
}

# expect_output NEEDLE ARGS... : exit 0 and NEEDLE in stdout
expect_output() {
    needle=$1; shift
    "$pillar" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -ne 0 ] || ! grep -qF -- "$needle" "$tmp/out"; then
        echo "FAIL: pillar $* (exit $rc) did not print '$needle':"; cat "$tmp/out" "$tmp/err"; fail=1
    else
        echo "ok: pillar $* prints '$needle'"
    fi
}

# no_file PATH : nothing at PATH, and no temporary file next to it
no_file() {
    d=$(dirname "$1")
    if [ -e "$1" ] || { [ -d "$d" ] && ls -a "$d" | grep -q "tmp-"; }; then
        echo "FAIL: $1 or a temporary file was left behind"; fail=1
    fi
}
