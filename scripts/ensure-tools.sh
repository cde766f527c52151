#!/usr/bin/env bash
# Installs what the test suite needs and a fresh machine may lack:
# Debian's chromium for the browser tests, tmux for the TUI's, prometheus (its promtool) for the
# alert rules', staticcheck into bin/ for
# make vet, stripe-mock (the Stripe API peer of the billing tests) into bin/, and, with SENDLATER_REQUIRE_RELEASE=1,
# goreleaser into bin/ for make release-check.
set -euo pipefail
cd "$(dirname "$0")/.."
# apt_install PACKAGE WHAT: Debian's PACKAGE, as root or through sudo; where neither apt-get nor
# a way to root is here, one line says what is skipped (make test then skips those tests too)
# and how to enable them.
apt_install() {
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	if ! command -v apt-get >/dev/null 2>&1 || { [ -n "$sudo" ] && ! command -v sudo >/dev/null 2>&1; }; then
		echo "$2 skipped: $1 is not installed and this machine has no apt-get (or sudo) to install it; install $1 to run them"
		return 0
	fi
	echo "installing $1 (Debian package) for $2"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$1" >/dev/null
}
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
	apt_install chromium "the browser tests"
fi
if ! command -v tmux >/dev/null 2>&1; then
	apt_install tmux "the TUI's end-to-end tests"
fi
if ! command -v promtool >/dev/null 2>&1; then
	apt_install prometheus "the alert rules' tests (promtool check/test rules on docs/ops/alerts.yml)"
fi
STATICCHECK_VERSION=v0.8.2 # make test's staticcheck (make vet)
if [ ! -x bin/staticcheck ]; then
	echo "installing staticcheck $STATICCHECK_VERSION into bin/ for make vet"
	GOBIN="$PWD/bin" ${GO:-go} install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" ||
		echo "could not install staticcheck: make vet will skip it"
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
