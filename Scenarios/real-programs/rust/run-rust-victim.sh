#!/bin/sh
# Builds rust_victim.rs (only when `rustc` is on PATH: the scenarios require
# it) into the working directory with `rustc -O` and the panic strategy
# given first (unwind or abort), then runs it with the other arguments. The
# build runs without LD_PRELOAD; only the victim is watched.
set -e
here=$(cd "$(dirname "$0")" && pwd)
strategy=$1
shift
LD_PRELOAD= rustc -O -g -C panic="$strategy" -o ./rust-victim "$here/rust_victim.rs"
exec ./rust-victim "$@"
