#!/usr/bin/env bash
# Writes what the release archives carry besides the binary, from the
# command tree of this checkout: shell completions (build/completions) and
# man pages (build/man). goreleaser runs it as a before hook.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf build/completions build/man
mkdir -p build/completions build/man
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
${GO:-go} build -o "$bin/sendlater" ./cmd/sendlater
"$bin/sendlater" completion bash >build/completions/sendlater.bash
"$bin/sendlater" completion zsh >build/completions/_sendlater
"$bin/sendlater" completion fish >build/completions/sendlater.fish
"$bin/sendlater" completion powershell >build/completions/sendlater.ps1
"$bin/sendlater" docs --man build/man
