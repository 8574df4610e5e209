#!/bin/bash
# pack-out.sh — a device call's results packed so that the device tool brings them back (at most
# 8 files of 16 MiB): the files of DIR... up to PACK_MAX bytes each (default 2M, find -size's
# units) into OUT/NAME.tgz, cut into pieces of 15 MiB when larger (OUT/NAME.tgz.aa, .ab, ...:
# `cat NAME.tgz.* > NAME.tgz` joins them), and the list of files left out for their size in
# OUT/NAME-left-out.txt. Meshes, reports and plans of a run's folder are what usually passes.
#   tools/pack-out.sh NAME OUT DIR...
# Exit 0; 1 when nothing was packed; 2 on a usage error.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: tools/pack-out.sh NAME OUT DIR..." >&2; exit 2; }
name=$1 out=$2
shift 2
max=${PACK_MAX:-2M}
mkdir -p "$out" || exit 2
list=$(mktemp) || exit 2
find "$@" -type f -size "-$max" >"$list"
find "$@" -type f ! -size "-$max" >"$out/$name-left-out.txt"
[ -s "$out/$name-left-out.txt" ] || rm -f "$out/$name-left-out.txt"
if [ ! -s "$list" ]; then
    echo "pack-out.sh: no file under $max in $*"
    rm -f "$list"
    exit 1
fi
tar czf "$out/$name.tgz" -T "$list" || { rm -f "$list"; exit 1; }
rm -f "$list"
if [ "$(stat -c %s "$out/$name.tgz")" -gt $((15 * 1024 * 1024)) ]; then
    split -b 15M "$out/$name.tgz" "$out/$name.tgz." && rm -f "$out/$name.tgz"
fi
ls -l "$out" | grep -F "$name"
