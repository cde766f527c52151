#!/usr/bin/env bash
# Captures the TUI's main views from the built binary in a real terminal
# (tmux, 80x24) into docs/screenshots/tui-*.txt: a throwaway data directory,
# a server on a free port to sign up and write three messages, then
# `sendlater tui --user` on the store. Rerun after changing a view.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/docs/screenshots"
work="$(mktemp -d)"
sock="sendlater-shots-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; [ -n "${srv:-}" ] && kill "$srv" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/sendlater" ./cmd/sendlater
cd "$work"
./sendlater serve --addr 127.0.0.1:0 2>serve.log &
srv=$!
for _ in $(seq 100); do grep -q 'msg=serving' serve.log && break; sleep 0.1; done
url="http://$(sed -n 's/.*msg=serving addr=\([^ ]*\).*/\1/p' serve.log | head -1)"
token=$(curl -fsS "$url/api/auth/signup" -H 'Content-Type: application/json' \
	-d '{"email":"ada@example.com","password":"a long passphrase for screenshots","name":"Ada Lovelace","timezone":"Europe/London"}' |
	sed 's/.*"idToken":"\([^"]*\)".*/\1/')
./sendlater users set-plan ada@example.com pro >/dev/null
post() {
	curl -fsS "$url/api/messages" -H 'Content-Type: application/json' -H "Authorization: Bearer $token" -d "$1" >/dev/null
}
post '{"title":"The spare key","name":"Charles Babbage","recipient":"charles@example.com","message":"The key is under the blue pot by the door.","interval":"1M"}'
post '{"title":"Letter for my daughter'"'"'s 18th birthday","name":"Ada Byron King","recipient":"ada.king@example.com","message":"Dear Ada,\n\nBy now you are grown.","interval":"12M"}'
post '{"title":"Passwords","recipients":[{"name":"Mary Somerville","recipient":"mary@example.com"},{"name":"Charles Babbage","recipient":"charles@example.com"},{"name":"Ada Byron King","recipient":"ada.king@example.com"}],"message":"The vault'"'"'s code is in the green book.","interval":"6M"}'
kill "$srv"; wait "$srv" 2>/dev/null || true; srv=""
export XDG_CONFIG_HOME="$work/config" TERM=xterm-256color
tmux -L "$sock" -f /dev/null new-session -d -s t -x 80 -y 24 "$work/sendlater tui --user ada@example.com"
shot() { sleep 0.7; tmux -L "$sock" capture-pane -p -t t >"$out/tui-$1.txt"; echo "docs/screenshots/tui-$1.txt"; }
keys() { tmux -L "$sock" send-keys -t t "$@"; }
shot list
keys d; shot delete; keys n
keys v; shot preview; keys Escape; sleep 0.5
keys n; sleep 0.3; keys Half Tab Tab C-s; shot form-errors
keys Escape; sleep 0.5
keys l; shot timeline; keys Escape; sleep 0.5
keys H; shot hold; keys Escape; sleep 0.5
keys e; sleep 0.3; keys C-n; shot form-recipients; keys Escape
keys q
