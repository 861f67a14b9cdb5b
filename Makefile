# swift-keychain — every target installs what it needs first (scripts/bootstrap), so a fresh Debian machine
# needs only `make demo` and `make test`.
SWIFT ?= swift
export SWIFT_BACKTRACE ?= enable=no

.PHONY: bootstrap build test lint demo bench soak files-soak fuzz-files docs clean

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

# A 1 GiB protected file streamed through a writer, a reader and unprotect in a child process, peak RSS < 32 MiB
# (`make test` streams 64 MiB).
files-soak: bootstrap
	$(SWIFT) build --build-tests
	FILE_PROTECTION_SOAK=1 $(SWIFT) test --skip-build --filter LargeFileTests

# libFuzzer on the protected-file reader (FileProtection) for FUZZ_SECONDS (default 10 minutes). The instrumented
# build has its own scratch path so it does not replace the ordinary one; the corpus lives in fuzz-corpus/ (not in
# git).
FUZZ_SECONDS ?= 600
fuzz-files: bootstrap
	$(SWIFT) build --sanitize=fuzzer --scratch-path .build/fuzz --product fileprotection-fuzz
	mkdir -p fuzz-corpus/files
	$$($(SWIFT) build --sanitize=fuzzer --scratch-path .build/fuzz --show-bin-path)/fileprotection-fuzz \
		-max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz-corpus/files- fuzz-corpus/files

# The Keychain module's DocC archive: public symbol graphs from `swift package dump-symbol-graph`, then the
# toolchain's docc over the catalog.
DOCC ?= $(dir $(realpath $(shell command -v $(SWIFT))))docc
docs: bootstrap
	$(SWIFT) package dump-symbol-graph --minimum-access-level public >/dev/null
	rm -rf .build/docs/symbol-graphs && mkdir -p .build/docs/symbol-graphs
	cp $$($(SWIFT) build --show-bin-path)/../symbolgraph/Keychain.symbols.json .build/docs/symbol-graphs/
	$(DOCC) convert Sources/Keychain/Keychain.docc --additional-symbol-graph-dir .build/docs/symbol-graphs \
		--fallback-display-name Keychain --fallback-bundle-identifier swift-keychain.Keychain \
		--warnings-as-errors --output-path .build/docs/Keychain.doccarchive

clean:
	rm -rf .build
