#!/usr/bin/env bash
# The cost of metrics and tracing on list and create (issue 34), side by
# side: builds sendlater and loadgen from this checkout, then runs loadgen's
# observe scenario (cmd/loadgen/observe.go): two servers of the same binary
# on bbolt, "off" (no metrics, no tracing) and "on" (metrics.addr scraped
# every second, tracing at RATIO to an in-process OTLP/HTTP sink), list
# then create on each, off/on alternating (ABBA) for ROUNDS rounds, or
# both loaded at the same time (TOGETHER=1).
# It prints the machine, `uptime` before and after, every run, the on/off
# ratio of the summed req/s and the CPU time per request over all the
# rounds (docs/benchmarks-history.md). The log goes to OUT too.
#
#   scripts/bench-trace-overhead.sh                  # 8 rounds, 10 s, ratio 0.1
#   ROUNDS=4 D=20s RATIO=0 scripts/bench-trace-overhead.sh
#   ON=metrics scripts/bench-trace-overhead.sh        # on = metrics only (or ON=tracing)
#   TOGETHER=1 scripts/bench-trace-overhead.sh       # off and on loaded at the same time
#   PROFILE=/tmp/prof scripts/bench-trace-overhead.sh  # + a CPU profile of every run
#     (metrics.pprof; off then has metrics on, unscraped: not for the figures)
#     go tool pprof -top -cum "$BIN/sendlater" /tmp/prof/create-on-1.pprof
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-8} D=${D:-10s} WARMUP=${WARMUP:-2s} RATIO=${RATIO:-0.1} CONNS=${CONNS:-64} ON=${ON:-both}
BIN=${BIN:-$(mktemp -d)}
OUT=${OUT:-$BIN/bench-trace-overhead.log}
go build -o "$BIN/sendlater" ./cmd/sendlater
go build -o "$BIN/loadgen" ./cmd/loadgen
args=(-bin "$BIN/sendlater" -scenarios observe -rounds "$ROUNDS" -d "$D" -warmup "$WARMUP" -c "$CONNS" -observe-ratio "$RATIO" -observe-on "$ON")
if [ -n "${TOGETHER:-}" ]; then args+=(-observe-together); fi
if [ -n "${PROFILE:-}" ]; then args+=(-observe-profile "$PROFILE"); fi
{
	echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' (with local changes)')"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr), $(go version | cut -d' ' -f3)"
	echo "command: loadgen ${args[*]}"
	echo "uptime before: $(uptime)"
	(cd "$BIN" && ./loadgen "${args[@]}")
	echo "uptime after: $(uptime)"
} 2>&1 | tee "$OUT"
echo "log: $OUT"
