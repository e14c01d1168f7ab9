#!/bin/sh
# Builds cgo_victim.go (only when `go` is on PATH: the scenarios require it)
# into the working directory and runs it with the given arguments. The build
# runs without LD_PRELOAD; only the victim is watched.
set -e
here=$(cd "$(dirname "$0")" && pwd)
export CGO_ENABLED=1 GOFLAGS= GO111MODULE=off
export GOCACHE="${GOCACHE:-/tmp/faultline-go-cache}" GOPATH="${GOPATH:-/tmp/faultline-go-path}"
LD_PRELOAD= go build -o ./cgo-victim "$here/cgo_victim.go"
exec ./cgo-victim "$@"
