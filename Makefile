# swift-keychain — every target installs what it needs first (scripts/bootstrap), so a fresh Debian machine
# needs only `make demo` and `make test`.
SWIFT ?= swift
export SWIFT_BACKTRACE ?= enable=no

.PHONY: bootstrap build test lint demo bench soak clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

lint: bootstrap
	$(SWIFT) format lint --strict -r Sources Tests

test: bootstrap lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: bootstrap
	$(SWIFT) build --product keychain-demo
	$$($(SWIFT) build --show-bin-path)/keychain-demo

bench: bootstrap
	$(SWIFT) build -c release --product keychain-bench
	$$($(SWIFT) build -c release --show-bin-path)/keychain-bench $(BENCH_ARGS)

# Long crash and concurrency loops, run before resolving the issues they belong to.
soak: bootstrap
	$(SWIFT) build --build-tests
	KEYCHAIN_SOAK=1 $(SWIFT) test --skip-build --filter Soak

clean:
	rm -rf .build
