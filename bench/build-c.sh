#!/usr/bin/env bash
# Builds the C reference programs that the benchmarks compare with (bench/src/main/c) into $1
# (default /tmp/uring-anchors). Needs gcc and Debian's liburing-dev (installed here when missing, as root).
set -euo pipefail
out=${1:-/tmp/uring-anchors}
src=$(cd "$(dirname "$0")/src/main/c" && pwd)
if ! [ -e /usr/include/liburing.h ]; then
  apt-get update -qq >/dev/null && apt-get install -y -qq liburing-dev >/dev/null
fi
mkdir -p "$out"
for p in nop echo_server accept_bench; do
  gcc -O2 -o "$out/$p" "$src/$p.c" -luring
done
for p in echo_client epoll_echo_server; do
  gcc -O2 -o "$out/$p" "$src/$p.c"
done
echo "built into $out: nop echo_server accept_bench echo_client epoll_echo_server"
