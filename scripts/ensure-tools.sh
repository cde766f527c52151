#!/usr/bin/env bash
# Installs what the test suite needs and a fresh machine may lack:
# Debian's chromium for the browser tests, tmux for the TUI's, stripe-mock (the Stripe API
# peer of the billing tests) into bin/, and, with SENDLATER_REQUIRE_RELEASE=1,
# goreleaser into bin/ for make release-check.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
	echo "installing chromium (Debian package) for the browser tests"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
if ! command -v tmux >/dev/null 2>&1; then
	echo "installing tmux (Debian package) for the TUI's end-to-end tests"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tmux >/dev/null
fi
STRIPE_MOCK_VERSION=v0.203.0 # keep in step with billing/stripemock.Version
if [ ! -x bin/stripe-mock ]; then
	echo "installing stripe-mock $STRIPE_MOCK_VERSION into bin/ for the billing tests"
	GOBIN="$PWD/bin" ${GO:-go} install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION" ||
		echo "could not install stripe-mock: the billing tests will be skipped"
fi
GORELEASER_VERSION=v2.16.0 # goreleaser.yaml is checked with it (make release-check)
if [ "${SENDLATER_REQUIRE_RELEASE:-}" = 1 ] && ! command -v goreleaser >/dev/null 2>&1 && [ ! -x bin/goreleaser ]; then
	echo "installing goreleaser $GORELEASER_VERSION into bin/ for make release-check (a few minutes, once)"
	GOBIN="$PWD/bin" ${GO:-go} install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi
