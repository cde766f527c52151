# Sendlater: `make run` builds everything and serves on :8080; `make test` runs every test.
GO      ?= go
NPM     ?= npm
UI      := web/ui
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# The database of make bench's PostgreSQL figures (each run makes and drops a schema there).
BENCH_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable

.PHONY: run build install ui ui-deps test test-go test-ui lint lighthouse screenshots vet bench tools clean release-check

## run: build the SPA and the binary, then serve on the zero-config defaults
run: build
	./bin/sendlater serve

## build: the SPA, embedded into bin/sendlater
build: ui
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/sendlater ./cmd/sendlater

## install: the same binary as `sendlater` on your PATH (go install: into $GOBIN, else $GOPATH/bin)
install: ui
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/sendlater
	@dir=$$($(GO) env GOBIN); dir=$${dir:-$$($(GO) env GOPATH)/bin}; \
	case ":$$PATH:" in *":$$dir:"*) echo "installed $$dir/sendlater";; \
	*) echo "installed $$dir/sendlater ($$dir is not on your PATH: add it there, or run $$dir/sendlater)";; esac

ui-deps: $(UI)/node_modules/.package-lock.json

$(UI)/node_modules/.package-lock.json: $(UI)/package-lock.json $(UI)/package.json
	cd $(UI) && $(NPM) ci --no-audit --no-fund
	@# a module of its own, so that ./... never reaches the Go code some npm packages ship
	@echo 'module node_modules' > $(UI)/node_modules/go.mod
	@touch $@

# The SPA is built again only when its sources, packages or build settings changed: make run
# and make test on an unchanged tree skip it. Its build type-checks and prerenders the public
# pages (npm run build); the prerender's list is its last file, so a build that failed on the
# way is run again.
UI_SOURCES := $(shell find $(UI)/src $(UI)/public -type f 2>/dev/null) \
	$(UI)/index.html $(UI)/vite.config.ts $(UI)/tsconfig.json $(UI)/package.json $(UI)/scripts/prerender.mjs
UI_BUILT := $(UI)/dist/prerender/pages.json
ui: $(UI_BUILT)

$(UI_BUILT): $(UI)/node_modules/.package-lock.json $(UI_SOURCES)
	cd $(UI) && $(NPM) run build

## test: vet, the Go tests with -race, the SPA's build (type check included), lint and unit tests, release-check
test: tools ui test-ui vet test-go release-check

# The type check is the build's (ui), not run a second time.
test-ui: ui
	cd $(UI) && $(NPM) run lint && $(NPM) test

## lint: the SPA's eslint (make test runs it too)
lint: ui-deps
	cd $(UI) && $(NPM) run lint

# WITH_SERVER runs a shell command in web/ui against bin/sendlater serving a fresh data directory
# on $(WEB_ADDR) (its url in $$url), and stops the server after.
WEB_ADDR ?= 127.0.0.1:18181
define WITH_SERVER
	@data=$$(mktemp -d); url=http://$(WEB_ADDR); \
	./bin/sendlater serve --addr $(WEB_ADDR) --data-dir $$data >$$data/serve.log 2>&1 & pid=$$!; \
	trap 'kill $$pid; wait $$pid 2>/dev/null; rm -rf $$data' EXIT; \
	for i in 1 2 3 4 5 6 7 8 9 10; do curl -fs $$url/healthz >/dev/null && break; sleep 0.5; done; \
	cd $(UI) && $(1)
endef

## lighthouse: the home page's bytes as sent, then Lighthouse 12.8.2 mobile on /, /pricing and
## /auth/signin, three runs each, against a fresh server (docs/benchmarks.md); not in make test
lighthouse: tools build
	$(call WITH_SERVER,node scripts/home-weight.mjs $$url && node scripts/lighthouse.mjs $$url 3)

## screenshots: docs/screenshots (every screen; light and dark; desktop and phone), against a
## fresh server at localhost, where browsers offer passkeys (Lighthouse's is at 127.0.0.1)
screenshots: WEB_ADDR = localhost:18181
screenshots: tools build
	$(call WITH_SERVER,node scripts/screenshots.mjs $$url ../../docs/screenshots $$data/serve.log)

# vet: go vet, gofmt, staticcheck (the version scripts/ensure-tools.sh pins, in bin/;
# skipped with one line when it could not be installed) and the length of Go files (under 400)
vet:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './web/ui/node_modules/*')); \
	if [ -n "$$unformatted" ]; then echo "gofmt: these files are not formatted (gofmt -w them):"; echo "$$unformatted"; exit 1; fi
	@if [ -x bin/staticcheck ]; then echo "bin/staticcheck ./..."; bin/staticcheck ./...; \
	else echo "staticcheck skipped: bin/staticcheck is missing (make tools installs it)"; fi
	@long=$$(for f in $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './web/ui/node_modules/*'); do \
		case $$f in web/ui/node_modules/*|./web/ui/node_modules/*) continue;; esac; \
		n=$$(wc -l < $$f); [ $$n -ge 400 ] && echo "$$f: $$n lines (a Go file stays under 400: split it by area)"; done; true); \
	if [ -n "$$long" ]; then echo "$$long"; exit 1; fi

# Suites that skip (PostgreSQL not reachable) append their notice to
# SENDLATER_SKIP_LOG; it is printed once after `go test`, which hides it.
test-go:
	@skipped=$$(mktemp); \
	browser=$${SENDLATER_REQUIRE_BROWSER:-$$( { command -v chromium || command -v /usr/bin/chromium; } >/dev/null 2>&1 && echo 1)}; \
	terminal=$${SENDLATER_REQUIRE_TERMINAL:-$$(command -v tmux >/dev/null 2>&1 && echo 1)}; \
	echo "SENDLATER_REQUIRE_BROWSER=$$browser SENDLATER_REQUIRE_TERMINAL=$$terminal $(GO) test -race -count=1 -timeout 30m ./..."; \
	SENDLATER_REQUIRE_BROWSER=$$browser SENDLATER_REQUIRE_TERMINAL=$$terminal SENDLATER_SKIP_LOG=$$skipped $(GO) test -race -count=1 -timeout 30m ./...; \
	status=$$?; sort -u $$skipped; rm -f $$skipped; exit $$status

# goreleaser on the PATH, else the one scripts/ensure-tools.sh installs into bin/.
GORELEASER ?= $(shell command -v goreleaser 2>/dev/null || { [ -x bin/goreleaser ] && echo bin/goreleaser; })

## release-check: goreleaser check, then a snapshot build of the host's target (the SPA, then the
## before hooks write the completions and the man pages); skipped with a notice without goreleaser
## unless SENDLATER_REQUIRE_RELEASE=1 (then scripts/ensure-tools.sh installs it)
release-check: ui
	@if [ -z "$(GORELEASER)" ]; then \
		if [ "$$SENDLATER_REQUIRE_RELEASE" = 1 ]; then echo "release-check: goreleaser is missing (make tools installs it)"; exit 1; fi; \
		echo "release-check skipped: goreleaser is not installed (SENDLATER_REQUIRE_RELEASE=1 installs it)"; exit 0; \
	fi; \
	set -e; start=$$(date +%s); \
	$(GORELEASER) check; \
	SENDLATER_UI_BUILT=1 $(GORELEASER) build --snapshot --single-target --clean; \
	for f in build/completions/sendlater.bash build/completions/_sendlater build/completions/sendlater.fish \
		build/completions/sendlater.ps1 build/man/sendlater.1 build/man/sendlater-send-due.1; do \
		[ -s $$f ] || { echo "release-check: $$f is missing"; exit 1; }; done; \
	./dist/*/sendlater version; \
	echo "release-check passed in $$(( $$(date +%s) - start )) s"

## tools: what the tests need that a fresh machine lacks (chromium, stripe-mock)
tools:
	@scripts/ensure-tools.sh

## bench: the benchmarks of docs/benchmarks.md
bench:
	$(GO) test ./store/bolt -run '^$$' -bench . -benchtime 2s
	$(GO) test ./store/postgres -run '^$$' -bench . -benchtime 2s
	$(GO) test ./core -run '^$$' -bench 'DeliveryThroughput|RecipientThroughput|SchedulerLateness' -benchtime 2x
	$(GO) test ./web -run '^$$' -bench . -benchtime 2s
	$(GO) test ./internal/logbuf ./internal/textlog ./mailer -run '^$$' -bench . -benchmem
	$(GO) test ./tui -run '^$$' -bench . -count 3
	$(GO) build -o bin/sendlater ./cmd/sendlater
	$(GO) run ./cmd/loadgen -bin bin/sendlater
	$(GO) run ./cmd/loadgen -bin bin/sendlater -replicas 3 -postgres '$(BENCH_POSTGRES_URL)' -scenarios list,create,deliver
	$(GO) run ./cmd/loadgen -bin bin/sendlater -scenarios ceiling,signin-burst -d 5s -warmup 1s
	$(GO) run ./cmd/loadgen -bin bin/sendlater -postgres '$(BENCH_POSTGRES_URL)' -scenarios ceiling -d 5s -warmup 1s

clean:
	rm -rf bin build dist $(UI)/node_modules
