#!/bin/sh
# curl fetches 1 MB from slow_server.py into a pipe whose reader waits 4 s
# before it reads: curl polls its socket first, then blocks writing into
# the full pipe. Prints the body's md5sum.
set -e
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/slow_server.py" > port &
server=$!
trap 'kill $server' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s port ] && break; sleep 0.3; done
curl -s "http://127.0.0.1:$(cat port)/" | (sleep 4; md5sum)
