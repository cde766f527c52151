#!/usr/bin/env bash
# Installs what the test suite needs and a fresh machine may lack:
# Debian's chromium for the browser tests.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
	echo "installing chromium (Debian package) for the browser tests"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
