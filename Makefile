# OpenAVFoundation — the two commands a newcomer types:
#   make play   build and play a demo clip
#   make test   install what is missing, generate fixtures, lint, run the tests
# and the others:
#   make docs                        the DocC reference and articles as a static site (.build/docs/index.html)
#   make examples                    build the packages in Examples/ and run each briefly on a fixture
#   make install PREFIX=/usr/local   avplay, its manual page and bash completion; make uninstall removes them
SHELL := /bin/bash
# `swift` is the one on PATH; /opt/swift/usr/bin (where CI's machine keeps the toolchain) is only a fallback.
export PATH := $(PATH):/opt/swift/usr/bin

SWIFT ?= swift
FIXTURE_CACHE ?= $(CURDIR)/.cache/fixtures
export OAVF_FIXTURE_CACHE := $(FIXTURE_CACHE)

.PHONY: all build play test lint format fixtures golden bench bootstrap demo clean docs examples install uninstall

all: build

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

# A demo clip the project makes itself (testsrc2 with the frame-index bands, 440/660 Hz tones).
demo: bootstrap
	@scripts/make-fixtures --demo >/dev/null

# Without a sound card (no /dev/snd), SDL's dummy driver keeps the player quiet instead of
# printing ALSA errors; on a desktop SDL picks PulseAudio/PipeWire/ALSA itself.
NO_SOUND := $(if $(wildcard /dev/snd),,SDL_AUDIODRIVER=dummy)

play: demo
	$(SWIFT) build -c release --product avplay
	$(NO_SOUND) .build/release/avplay $(PLAY_ARGS) "$$(scripts/make-fixtures --demo)"

fixtures: bootstrap
	@scripts/make-fixtures >/dev/null

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

# Line-buffered, so a log shows the test that was running if one ever hangs; the whole run is
# stopped after 25 minutes (it takes about 2), long before CI's own limit. The DocC build (about 40 s once the
# debug build it shares with the tests is done) and the examples (one more debug build of the package, about
# 3 minutes from scratch, then 15 s of runs) come first, so CI checks them too.
test: bootstrap fixtures lint docs examples
	OAVF_FIXTURES="$$(scripts/make-fixtures)" timeout --kill-after=30 1500 \
		stdbuf -oL -eL $(SWIFT) test --disable-swift-testing

# Rewrites the playback dumps' golden files (Tests/PlaybackEngineTests/Golden/*.dump) from this engine instead of
# comparing with them; review `git diff` before committing them.
golden: bootstrap fixtures
	OAVF_UPDATE_GOLDEN=1 OAVF_FIXTURES="$$(scripts/make-fixtures)" \
		$(SWIFT) test --disable-swift-testing --filter 'PlaybackEngineTests.PlaybackDumpTests'

bench: bootstrap fixtures
	@scripts/bootstrap --bench
	scripts/bench

# The reference of the public modules (AVFoundation, CoreMedia, CoreVideo) and the articles, with the toolchain's
# docc, into $(DOCS_DIR) (open index.html from disk). Fails on any DocC warning and on a public symbol without a
# summary.
DOCS_DIR ?= $(CURDIR)/.build/docs
docs: bootstrap
	scripts/build-docs $(DOCS_DIR)

# Examples/*: separate packages that depend on this one by path, built (sharing one build folder) and run headless.
examples: bootstrap fixtures
	OAVF_FIXTURES="$$(scripts/make-fixtures)" scripts/build-examples

# `make install PREFIX=/usr/local` (DESTDIR is honoured for packaging). The manual page is generated from
# `avplay --help` (scripts/avplay-manpage), so the two never disagree. `make uninstall` removes those three files.
PREFIX ?= /usr/local
BINDIR := $(DESTDIR)$(PREFIX)/bin
MAN1DIR := $(DESTDIR)$(PREFIX)/share/man/man1
COMPLETIONDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
install: bootstrap
	$(SWIFT) build -c release --product avplay
	scripts/avplay-manpage .build/release/avplay > .build/release/avplay.1
	install -D -m 755 .build/release/avplay $(BINDIR)/avplay
	install -D -m 644 .build/release/avplay.1 $(MAN1DIR)/avplay.1
	install -D -m 644 share/bash-completion/completions/avplay $(COMPLETIONDIR)/avplay

uninstall:
	rm -f $(BINDIR)/avplay $(MAN1DIR)/avplay.1 $(COMPLETIONDIR)/avplay

clean:
	rm -rf .build
