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

.PHONY: all build play test lint format fixtures golden bench soak bootstrap demo clean docs examples install uninstall sanitize sanitize-address sanitize-thread fuzz

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

# swift-format, and the one-kind-of-lock rule (scripts/check-locks: ConditionLock / Locked only).
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests
	@scripts/check-locks

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

# The tests run in four processes at once (TEST_JOBS), each taking whole test classes one after another, shared out
# by their measured times (scripts/run-tests, scripts/test-weights): most tests wait on real time (a device, a window,
# a loopback server) rather than compute, and a process per test (`swift test --parallel`) spent a quarter of the
# time starting processes — 187 s of tests became 120 s. `make test TEST_JOBS=1` runs them all in one process, one
# after another; each process's output is in .build/test-logs/. The whole run is stopped after 25 minutes, long
# before CI's own limit. The DocC build and the examples are not part of it (CI runs `make docs examples` after it:
# .ci/run).
TEST_JOBS ?= 4
# The build runs outside the hang guard (`timeout`): on a machine whose cores are busy it may take long, and it cannot
# hang; the guard is for the tests.
test: bootstrap fixtures lint
	$(SWIFT) build --build-tests
	OAVF_FIXTURES="$$(scripts/make-fixtures)" TEST_JOBS=$(TEST_JOBS) SWIFT=$(SWIFT) \
		timeout --kill-after=30 1500 scripts/run-tests

# Rewrites the playback dumps' golden files (Tests/PlaybackEngineTests/Golden/*.dump) from this engine instead of
# comparing with them; review `git diff` before committing them.
golden: bootstrap fixtures
	OAVF_UPDATE_GOLDEN=1 OAVF_FIXTURES="$$(scripts/make-fixtures)" \
		$(SWIFT) test --disable-swift-testing --filter 'PlaybackEngineTests.PlaybackDumpTests'

# The suite under AddressSanitizer, then ThreadSanitizer, each in its own scratch path (instrumented builds cannot
# share objects), in one process through scripts/run-tests (its hang guard names a test that hangs; its logs are in
# .build/asan-logs, .build/tsan-logs). SANITIZE_FILTER keeps the test classes it matches (an extended regular
# expression on "Target.Class", e.g. 'PlaybackEngineTests|AVFoundationTests'). Leak detection is off: XCTest,
# Foundation's Data(contentsOf:) and NSValue.objCType leak small blocks by themselves (none from this project's code in
# the last run); SoakTests checks this project's resources instead.
SANITIZE_FILTER ?=
SANITIZE_JOBS ?= 1

sanitize: sanitize-address sanitize-thread

sanitize-address: bootstrap fixtures
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	OAVF_FIXTURES="$$(scripts/make-fixtures)" ASAN_OPTIONS="detect_leaks=0" TEST_JOBS=$(SANITIZE_JOBS) \
		TEST_FILTER='$(SANITIZE_FILTER)' TEST_LOGS=.build/asan-logs SWIFT=$(SWIFT) \
		timeout --kill-after=30 3600 scripts/run-tests --sanitize=address --scratch-path .build/asan

sanitize-thread: bootstrap fixtures
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	OAVF_FIXTURES="$$(scripts/make-fixtures)" TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
		TEST_JOBS=$(SANITIZE_JOBS) TEST_FILTER='$(SANITIZE_FILTER)' TEST_LOGS=.build/tsan-logs SWIFT=$(SWIFT) \
		timeout --kill-after=30 3600 scripts/run-tests --sanitize=thread --scratch-path .build/tsan

# libFuzzer harnesses (Fuzz/, a package of its own built with -sanitize=fuzzer,address; README "Development"): the HLS
# playlist parser, text subtitles (demuxers, decoders, cue store, attributed strings), the CEA-708 decoder, open+probe, and
# demux+decode+exact seeks. Each runs FUZZ_RUNS inputs from its corpus in .build/fuzz-corpus/<harness> (not committed;
# seeded by scripts/fuzz-seeds from the fixtures and the HLS tests' playlists), then the corpus is minimised
# (-merge=1, with the runs' memory limit: some decode+seek inputs take 2-3 GB at their peak under ASan, which the
# default 2 GB limit of a merge counted as failures). A crash or hang leaves its input as
# Fuzz/artifacts/<harness>-crash-*. The harnesses are built optimised (with testing enabled: two of them reach
# package-level code through @testable import), at nice 19.
FUZZ_RUNS ?= 1000000
FUZZ_HARNESSES ?= FuzzHLSParser FuzzSubtitles FuzzCEA708 FuzzOpenProbe FuzzDemuxDecodeSeek
FUZZ_FLAGS ?=
export FUZZ_SEEDS := text.mp4
# Per harness: inputs up to 64 KiB (a long playlist or subtitle file; media seeds are a few KiB).
# FuzzSubtitles runs without LeakSanitizer's per-input checks (Foundation's NSAttributedString leaks with every string,
# see Fuzz/lsan.supp, so every input would trigger a whole-heap scan: 50 inputs/s instead of 650; check leaks with
# FUZZ_FLAGS=-detect_leaks=1 and fewer runs) and in processes of 2×10⁵ inputs (that leak grows a process by a few KiB
# per input).
export FUZZ_ARGS_FuzzHLSParser := -dict=Fuzz/hls.dict -max_len=65536 -timeout=10
export FUZZ_ARGS_FuzzSubtitles := -max_len=65536 -timeout=40 -detect_leaks=0
export FUZZ_CHUNK_FuzzSubtitles := 200000
# FuzzCEA708: the CEA-708 decoder alone (a service byte, then length-prefixed pictures of cc_data triplets); the
# same leak of attributed strings as FuzzSubtitles.
export FUZZ_ARGS_FuzzCEA708 := -max_len=8192 -timeout=10 -detect_leaks=0
export FUZZ_CHUNK_FuzzCEA708 := 200000
# The media harnesses also run without per-input leak checks: a player leaves threads and caches settling after each
# input, so every input triggered a whole-heap scan (open+probe: 42 inputs/s with it, 400 without). Leaks of the
# player are what SoakTests' 200 cycles and scripts/soak measure; a leak pass is FUZZ_FLAGS=-detect_leaks=1.
# Both also run in processes of 2×10⁵ inputs: an ASan process's resident memory grows by about 7 KiB per input
# (1.9 GiB after 262k open+probe inputs; Foundation's NSValue leak and ASan's own bookkeeping; the player's memory stays
# flat without ASan, see SoakTests), which would reach -rss_limit_mb before 10⁶.
export FUZZ_ARGS_FuzzOpenProbe := -max_len=65536 -timeout=120 -detect_leaks=0
export FUZZ_ARGS_FuzzDemuxDecodeSeek := -max_len=65536 -timeout=120 -detect_leaks=0
export FUZZ_CHUNK_FuzzOpenProbe := 200000
export FUZZ_CHUNK_FuzzDemuxDecodeSeek := 200000

fuzz: bootstrap fixtures
	@# The build plan is made again: SwiftPM keeps the old one, without files added to the main package since, for a
	@# package depended on by path (the build then fails on a missing symbol).
	rm -f .build/fuzz/release.yaml
	$(SWIFT) build -c release --package-path Fuzz --scratch-path .build/fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
	@mkdir -p Fuzz/artifacts
	@fixtures="$$(scripts/make-fixtures)"; \
	for h in $(FUZZ_HARNESSES); do \
		corpus=.build/fuzz-corpus/$$h; args=FUZZ_ARGS_$$h; chunk=FUZZ_CHUNK_$$h; \
		scripts/fuzz-seeds $$h "$$fixtures" $$corpus; \
		left=$(FUZZ_RUNS); per=$${!chunk:-$(FUZZ_RUNS)}; \
		while [ $$left -gt 0 ]; do \
			runs=$$((left < per ? left : per)); left=$$((left - runs)); \
			echo "== $$h: $$runs runs ($$left after these)"; \
			SDL_AUDIODRIVER=dummy LSAN_OPTIONS=suppressions=Fuzz/lsan.supp nice -n 19 .build/fuzz/release/$$h $$corpus \
				-runs=$$runs -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=Fuzz/artifacts/$$h- \
				$${!args} $(FUZZ_FLAGS) || exit 1; \
		done; \
		echo "== $$h: minimising the corpus"; \
		rm -rf $$corpus.min && mkdir -p $$corpus.min; \
		SDL_AUDIODRIVER=dummy LSAN_OPTIONS=suppressions=Fuzz/lsan.supp nice -n 19 .build/fuzz/release/$$h -merge=1 \
			-rss_limit_mb=4096 -artifact_prefix=Fuzz/artifacts/$$h-merge- $$corpus.min $$corpus $${!args} 2>&1 \
			| grep -E '^MERGE-OUTER: [0-9]+ new files' || exit 1; \
		rm -rf $$corpus && mv $$corpus.min $$corpus; \
		echo "== $$h: corpus $$(ls $$corpus | wc -l) files, $$(du -sk --apparent-size $$corpus | cut -f1) KiB"; \
	done

bench: bootstrap fixtures
	@scripts/bootstrap --bench
	scripts/bench

# 30 minutes (SOAK_MINUTES) of real-time looped playback with keys pressed on a pseudo-terminal; resident memory,
# descriptors and threads sampled every 10 s, the section at the end of BENCHMARKS.md rewritten (scripts/soak).
soak: bootstrap fixtures
	scripts/soak

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
