#!/bin/sh
# Builds own_runtime_lib.cpp with clang++ -static-libstdc++ (the scenario
# requires clang++) and the C program that loads it, into the working
# directory, without LD_PRELOAD; then runs the program, which is watched.
set -e
here=$(cd "$(dirname "$0")" && pwd)
LD_PRELOAD= clang++ -O1 -g -shared -fPIC -static-libstdc++ -o ./libown-runtime.so "$here/own_runtime_lib.cpp"
LD_PRELOAD= clang -O1 -g -o ./own-runtime "$here/own_runtime_main.c" -ldl
exec ./own-runtime "$PWD/libown-runtime.so"
