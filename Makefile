# swift-keychain — every target installs what it needs first (scripts/bootstrap), so a fresh Debian machine
# needs only `make demo` and `make test`.
SWIFT ?= swift
export SWIFT_BACKTRACE ?= enable=no

.PHONY: bootstrap build test lint demo bench bench-secret-service cli static-security install uninstall soak files-soak docs fuzz-security fuzz-files fuzz-daemon \
	clean

# Release builds link the Swift runtime in (-static-stdlib), not position-independent (no relocations of the
# binary at start), and libsodium and SQLite from Debian dynamically; libpq is loaded with dlopen only when a
# PostgreSQL sync store is used (CLibPQ). Every product built with these flags shares .build, so switching between
# them rebuilds nothing.
RELEASE = -c release -Xswiftc -static-stdlib -Xlinker -no-pie
# The release `security` is linked fully statically (its own scratch path): a command starts in about half the time
# of the dynamic build (the dynamic loader binding a 80 MB binary to libstdc++, libsodium and SQLite costs about
# 2 ms). A static program cannot load libpq (Debian ships no static libpq that links), so it hands its sync verbs to
# its twin `security-libpq`, the same tool built with $(RELEASE), found beside it (DynamicTwin.swift).
STATIC_RELEASE = -c release -Xswiftc -static-executable --scratch-path .build/static
STATIC_BIN = $$($(SWIFT) build $(STATIC_RELEASE) --show-bin-path)
RELEASE_BIN = $$($(SWIFT) build $(RELEASE) --show-bin-path)

# The static `security` and its twin beside it (a link to the dynamic build's `security`).
static-security: bootstrap
	$(SWIFT) build $(STATIC_RELEASE) --product security
	$(SWIFT) build $(RELEASE) --product security
	ln -sf "$$(realpath $(RELEASE_BIN)/security)" $(STATIC_BIN)/security-libpq

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

lint: bootstrap
	$(SWIFT) format lint --strict -r Sources Tests

test: bootstrap lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# A real session with the `security` command on a temporary keychain (scripts/cli-demo).
demo: bootstrap
	$(SWIFT) build --product security
	scripts/cli-demo $$($(SWIFT) build --show-bin-path)/security

# keychain-bench also times the release `security` and keychaind as whole processes, so they are built (and
# keychaind-probe, which floods the daemon as another user, and keychain-bench-floor, the C floor of `security`);
# its sync figures run on a folder store and on a throwaway PostgreSQL server (scripts/with-test-postgres).
bench: bootstrap static-security
	scripts/bootstrap --bench
	$(SWIFT) build $(RELEASE) --product keychain-bench
	$(SWIFT) build $(RELEASE) --product keychain-bench-floor
	$(SWIFT) build $(RELEASE) --product keychaind
	$(SWIFT) build $(RELEASE) --product keychaind-probe
	$(SWIFT) build $(RELEASE) --product keychain-secret-service
	KEYCHAIN_BENCH_SECURITY=$(STATIC_BIN)/security \
		scripts/with-test-postgres $(RELEASE_BIN)/keychain-bench $(BENCH_ARGS)
	scripts/bench-secret-service $(RELEASE_BIN)/keychain-secret-service

# The Secret Service beside gnome-keyring only (python clients on private buses; see scripts/bench-secret-service).
bench-secret-service: bootstrap
	scripts/bootstrap --bench
	$(SWIFT) build $(RELEASE) --product keychain-secret-service
	scripts/bench-secret-service $(RELEASE_BIN)/keychain-secret-service

# The release `security` command; prints where it is (copy it anywhere on your PATH).
cli: static-security
	@echo $(STATIC_BIN)/security

# `make install`: the static release `security` and `keychaind` into $(DESTDIR)$(PREFIX)/bin (the twin
# security-libpq, for the sync verbs, into $(PREFIX)/libexec/swift-keychain), keychaind's systemd
# units into $(DESTDIR)$(UNITDIR) (their /usr/local rewritten to $(PREFIX)), the daemon's system user `keychaind`
# when it is missing, and the socket enabled and started only when systemd runs this machine (and DESTDIR is
# empty: a staged install touches nothing live). `make uninstall` stops and removes them; the keychains in
# /var/lib/swift-keychain and the user stay (remove them by hand: `userdel keychaind`, the directory).
PREFIX ?= /usr/local
DESTDIR ?=
UNITDIR ?= /etc/systemd/system
# The sync agent's user unit (`systemctl --user enable --now keychain-sync.service`, per user, after sync-init/join).
USERUNITDIR ?= /etc/systemd/user
install: static-security
	$(SWIFT) build $(RELEASE) --product keychaind
	$(SWIFT) build $(RELEASE) --product keychain-secret-service
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/swift-keychain $(DESTDIR)$(UNITDIR)
	install -m 0755 $(STATIC_BIN)/security $(DESTDIR)$(PREFIX)/bin/security
	install -m 0755 $(RELEASE_BIN)/security $(DESTDIR)$(PREFIX)/libexec/swift-keychain/security-libpq
	install -m 0755 $(RELEASE_BIN)/keychaind $(DESTDIR)$(PREFIX)/bin/keychaind
	install -m 0755 $(RELEASE_BIN)/keychain-secret-service $(DESTDIR)$(PREFIX)/bin/keychain-secret-service
	install -m 0644 systemd/keychaind.socket $(DESTDIR)$(UNITDIR)/keychaind.socket
	sed 's#/usr/local/bin/keychaind#$(PREFIX)/bin/keychaind#' systemd/keychaind.service \
		> $(DESTDIR)$(UNITDIR)/keychaind.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/keychaind.service
	install -d $(DESTDIR)$(USERUNITDIR)
	sed 's#/usr/local/bin/security#$(PREFIX)/bin/security#' systemd/keychain-sync.service \
		> $(DESTDIR)$(USERUNITDIR)/keychain-sync.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/keychain-sync.service
	sed 's#/usr/local/bin/keychain-secret-service#$(PREFIX)/bin/keychain-secret-service#' \
		systemd/keychain-secret-service.service > $(DESTDIR)$(USERUNITDIR)/keychain-secret-service.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/keychain-secret-service.service
	install -d $(DESTDIR)$(PREFIX)/share/dbus-1/services
	sed 's#/usr/local/bin/keychain-secret-service#$(PREFIX)/bin/keychain-secret-service#' \
		dbus/org.freedesktop.secrets.service > $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.freedesktop.secrets.service
	chmod 0644 $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.freedesktop.secrets.service
	install -d $(DESTDIR)$(PREFIX)/share/xdg-desktop-portal/portals
	install -m 0644 dbus/swift-keychain.portal $(DESTDIR)$(PREFIX)/share/xdg-desktop-portal/portals/swift-keychain.portal
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 man/security.1 $(DESTDIR)$(PREFIX)/share/man/man1/security.1
	install -m 0644 man/keychain-secret-service.1 $(DESTDIR)$(PREFIX)/share/man/man1/keychain-secret-service.1
	install -m 0644 man/keychaind.8 $(DESTDIR)$(PREFIX)/share/man/man8/keychaind.8
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 completion/security.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/security
	install -d $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0644 completion/_security $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_security
	install -m 0644 completion/security.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/security.fish
	@if [ -z "$(DESTDIR)" ]; then \
		getent passwd keychaind >/dev/null || useradd --system --user-group --no-create-home \
			--home-dir /var/lib/swift-keychain --shell /usr/sbin/nologin keychaind; \
		if getent group tss >/dev/null; then usermod -a -G tss keychaind; fi; \
		if [ -d /run/systemd/system ]; then \
			systemctl daemon-reload && systemctl enable --now keychaind.socket; \
		else \
			echo "make install: systemd is not running: keychaind.socket is installed but not enabled"; \
		fi; \
	fi

uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl disable --now keychaind.socket keychaind.service || true; \
	fi
	rm -f $(DESTDIR)$(PREFIX)/bin/security $(DESTDIR)$(PREFIX)/bin/keychaind
	rm -f $(DESTDIR)$(PREFIX)/libexec/swift-keychain/security-libpq
	rmdir $(DESTDIR)$(PREFIX)/libexec/swift-keychain 2>/dev/null || true
	rm -f $(DESTDIR)$(UNITDIR)/keychaind.socket $(DESTDIR)$(UNITDIR)/keychaind.service
	rm -f $(DESTDIR)$(USERUNITDIR)/keychain-sync.service
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/security.1 $(DESTDIR)$(PREFIX)/share/man/man8/keychaind.8
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/keychain-secret-service.1 $(DESTDIR)$(PREFIX)/bin/keychain-secret-service
	rm -f $(DESTDIR)$(USERUNITDIR)/keychain-secret-service.service
	rm -f $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.freedesktop.secrets.service
	rm -f $(DESTDIR)$(PREFIX)/share/xdg-desktop-portal/portals/swift-keychain.portal
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/security
	rm -f $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_security
	rm -f $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/security.fish
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

# Long crash and concurrency loops, run before resolving the issues they belong to.
soak: bootstrap
	$(SWIFT) build --build-tests
	KEYCHAIN_SOAK=1 $(SWIFT) test --skip-build --filter '[Ss]oak'

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

# The DocC archives of every library product (Package.swift's `products:`), each in
# .build/docs/<module>.doccarchive: public symbol graphs from `swift package dump-symbol-graph` (with extension
# blocks, so FileProtection's extension of `Data` and KeychainClient's of `KeychainStorage` are documented), then the
# toolchain's docc over each module's catalog (Sources/<module>/<module>.docc), warnings as errors. The graphs are
# dumped afresh, so a removed extension leaves no stale graph behind. `Security` and `LocalAuthentication` exist
# only where Darwin does not (Package.swift).
DOCC ?= $(dir $(realpath $(shell command -v $(SWIFT))))docc
DOC_MODULES := KeychainCore KeychainClient Keychain FileProtection CommonCrypto KeychainSync KeychainTPM \
	$(if $(filter Darwin,$(shell uname -s)),,Security LocalAuthentication)
docs: bootstrap
	rm -rf "$$($(SWIFT) build --show-bin-path)/../symbolgraph"
	@# The dump also tries the package's test aggregates (swift_keychainPackageTests, …), which exist only once the
	@# tests are built, and exits non-zero without them; what counts is that every documented module's graph is there.
	mkdir -p .build/docs
	$(SWIFT) package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols \
		>.build/docs/dump-symbol-graph.log 2>&1 || true
	rm -rf .build/docs/symbol-graphs
	set -e; graphs="$$($(SWIFT) build --show-bin-path)/../symbolgraph"; \
	for module in $(DOC_MODULES); do \
		if [ ! -e "$$graphs/$$module.symbols.json" ]; then \
			echo "make docs: no symbol graph for $$module: see .build/docs/dump-symbol-graph.log" >&2; exit 1; \
		fi; \
		mkdir -p .build/docs/symbol-graphs/$$module; \
		cp "$$graphs/$$module.symbols.json" .build/docs/symbol-graphs/$$module/; \
		for extension in "$$graphs/$$module"@*.symbols.json; do \
			if [ -e "$$extension" ]; then cp "$$extension" .build/docs/symbol-graphs/$$module/; fi; \
		done; \
		$(DOCC) convert Sources/$$module/$$module.docc \
			--additional-symbol-graph-dir .build/docs/symbol-graphs/$$module \
			--fallback-display-name $$module --fallback-bundle-identifier swift-keychain.$$module \
			--warnings-as-errors --output-path .build/docs/$$module.doccarchive; \
	done

# libFuzzer on the four SecItem functions (Security) for FUZZ_SECONDS (default 10 minutes). The instrumented build
# has its own scratch path so it does not replace the ordinary one; the corpus lives in fuzz-corpus/ (not in git).
fuzz-security: bootstrap
	$(SWIFT) build --sanitize=fuzzer --scratch-path .build/fuzz --product security-fuzz
	mkdir -p fuzz-corpus/security
	$$($(SWIFT) build --sanitize=fuzzer --scratch-path .build/fuzz --show-bin-path)/security-fuzz \
		-max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz-corpus/security- fuzz-corpus/security

# libFuzzer on keychaind's wire (KeychainCore's Daemon/): the message decoder, decoded requests carried out on an
# in-memory engine, and packet reassembly over a socket pair, for FUZZ_SECONDS (default 10 minutes). The fuzzer
# seeds an empty corpus with a valid message of every kind; the corpus lives in fuzz-corpus/ (not in git).
fuzz-daemon: bootstrap
	$(SWIFT) build --sanitize=fuzzer --scratch-path .build/fuzz --product daemon-fuzz
	mkdir -p fuzz-corpus/daemon
	$$($(SWIFT) build --sanitize=fuzzer --scratch-path .build/fuzz --show-bin-path)/daemon-fuzz \
		-max_total_time=$(FUZZ_SECONDS) -artifact_prefix=fuzz-corpus/daemon- fuzz-corpus/daemon

clean:
	rm -rf .build
