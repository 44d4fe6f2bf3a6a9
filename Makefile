# picajit — the commands a newcomer and CI run. `make test` is what CI runs (.ci/run).
CARGO ?= cargo
SHARED ?= ../shared
CORPUS ?= $(SHARED)/corpus/shbin
SECONDS ?= 600
FUZZ_TIME ?= 60
FUZZ_TARGETS ?= shbin asm pcas compile_run agal_read agal_asm
PICAJIT = $(CARGO) run -q --release --bin picajit --
RELEASE_PICAJIT = $${CARGO_TARGET_DIR:-target}/release/picajit

.PHONY: all setup lint package test test-fast bench fuzz fuzz-parsers demo clean header

all: test

## setup: check the toolchain pieces the other targets need; install qemu-user-static (the
## AArch64 backend's tests run under it on non-AArch64 hosts) with apt when it is missing.
setup:
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust (rustup) first"; exit 1; }
	@if [ "$$(uname -m)" != aarch64 ] && ! command -v qemu-aarch64-static >/dev/null && ! command -v qemu-aarch64 >/dev/null; then \
		if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
			echo "setup: installing qemu-user-static (AArch64 tests)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null; \
		elif command -v apt-get >/dev/null && command -v sudo >/dev/null; then \
			echo "setup: installing qemu-user-static (AArch64 tests)"; \
			sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null; \
		fi; \
	fi
	@if [ "$$(uname -m)" = aarch64 ] || command -v qemu-aarch64-static >/dev/null || command -v qemu-aarch64 >/dev/null; then \
		echo "setup: AArch64 backend tests can run"; \
	elif [ -n "$$CI" ]; then \
		echo "setup: qemu-user-static is missing and could not be installed (CI needs it)"; exit 1; \
	else \
		echo "setup: WARNING: no qemu-aarch64-static: the AArch64 backend's tests will be SKIPPED"; \
	fi
	@if ! command -v cc >/dev/null || ! command -v c++ >/dev/null; then \
		if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
			echo "setup: installing gcc and g++ (the C API examples are built by the tests)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc g++ >/dev/null; \
		fi; \
	fi
	@command -v cc >/dev/null && command -v c++ >/dev/null || { echo "setup: cc and c++ are needed (the C API examples are built by the tests)"; exit 1; }
	@$(CARGO) fmt --version >/dev/null 2>&1 || { echo "rustfmt missing: rustup component add rustfmt"; exit 1; }
	@$(CARGO) clippy --version >/dev/null 2>&1 || { echo "clippy missing: rustup component add clippy"; exit 1; }
	@test -d $(CORPUS) || echo "warning: $(CORPUS) not found; corpus tests need the shared/ folder beside the repo"
	@echo "setup: toolchain ok ($$($(CARGO) --version))"

## lint: formatting, clippy (default features, and the lean library without them) and the API
## docs, warnings are errors.
lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p picajit --no-default-features --lib -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --workspace

## package: the lean library a `default-features = false` user gets, and `cargo package` of
## every published crate (metadata, licences, file list; not re-verified from the .crate files:
## cargo keeps an extracted copy of a local crate per version and would check the new picajit
## against a stale picajit-codegen 0.1.0).
package: setup
	$(CARGO) build -p picajit --no-default-features --lib
	$(CARGO) package --workspace --no-verify --allow-dirty

## test: lint, packaging, every unit and integration test (every program also on AArch64, under qemu-user
## on other hosts; the regression corpus tests/regress included), the exhaustive EX2/LG2 check
## (release, all cores) and fixed-seed differential fuzz slices: 20,000 PICA programs on the
## interpreter and every backend this host runs natively, the first 2,000 of them also on the
## x86-64 tiers it only emulates (AVX-512 on most CPUs: the test build's x86-64 emulator runs
## them thousands of times slower), 1,000 geometry shaders (their triangles compared too) likewise,
## the first 200 of them also on the emulated tiers, 3,000 AGAL cases on every backend (a few
## seconds), and the first 2,000 PICA and 300 geometry programs on the AArch64 backend (under
## qemu-user on other hosts: about a minute).
## The fuzz slices run the picajit binary the float_exhaustive build already made (cargo builds a
## package's binaries for its integration tests): `cargo build --release --bin picajit` would
## build the library a second time, without the dev-dependencies' feature set.
test: lint package test-fast
	$(CARGO) test --release --test float_exhaustive
	$(RELEASE_PICAJIT) fuzz --cases 20000 --seed 1 --no-emulated
	$(RELEASE_PICAJIT) fuzz --cases 2000 --seed 1
	$(RELEASE_PICAJIT) fuzz --geometry --cases 1000 --seed 1 --no-emulated
	$(RELEASE_PICAJIT) fuzz --geometry --cases 200 --seed 1
	$(RELEASE_PICAJIT) fuzz --agal --cases 3000 --seed 1
	@if [ "$$(uname -m)" = aarch64 ] || command -v qemu-aarch64-static >/dev/null || command -v qemu-aarch64 >/dev/null; then \
		$(RELEASE_PICAJIT) fuzz --cases 2000 --seed 1 --backend aarch64 && \
		$(RELEASE_PICAJIT) fuzz --geometry --cases 300 --seed 1 --backend aarch64; \
	else \
		echo "test: WARNING: no qemu-aarch64-static: the AArch64 fuzz slices are SKIPPED"; \
	fi

## test-fast: the unit and integration tests only.
test-fast: setup
	$(CARGO) test --workspace

## bench: criterion benches, groups compile/<shader>, compile/<straight|branchy>/<size> and
## execute/<backend>/<shader>/<io> (5–6 minutes on 2 cores; reports in target/criterion).
bench:
	$(CARGO) bench --bench compile --bench execute

## fuzz: long differential fuzzing runs on every backend (vertex shaders, geometry shaders, AGAL),
## SECONDS=600 each by default; failures are minimized into fuzz-failures/ with a report and a
## replay command.
fuzz:
	$(CARGO) build --release --bin picajit
	$(PICAJIT) fuzz --seconds $(SECONDS) --seed $$(date +%s)
	$(PICAJIT) fuzz --geometry --seconds $(SECONDS) --seed $$(date +%s)
	$(PICAJIT) fuzz --agal --seconds $(SECONDS) --seed $$(date +%s)

## fuzz-parsers: cargo-fuzz (libFuzzer, nightly) on the SHBIN reader, the assembler, the PCAS
## reader, compile-and-run, the AGAL reader (bytecode, validator, interpreter, AGCS) and the AGAL
## assembler, FUZZ_TIME=60 seconds each; installs cargo-fuzz if missing.
## Crashes land in fuzz/artifacts/<target>/; replayed by tests/regress once copied to
## tests/regress/<target>/.
fuzz-parsers:
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install cargo-fuzz
	@rustup toolchain list | grep -q '^nightly' || { echo "fuzz-parsers: cargo-fuzz needs a nightly toolchain (rustup toolchain install nightly)"; exit 1; }
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus/$$t; \
	  seeds=""; \
	  case $$t in \
	    shbin) seeds="$(CORPUS) tests/regress/shbin";; \
	    asm) seeds="examples/shaders tests/regress/asm";; \
	    pcas) seeds="tests/regress tests/regress/pcas";; \
	    compile_run) seeds="tests/regress/compile_run";; \
	    agal_read) seeds="tests/regress/agal_read";; \
	    agal_asm) seeds="examples/agal tests/regress/agal_asm";; \
	  esac; \
	  dirs=""; for d in $$seeds; do test -d $$d && dirs="$$dirs $$d"; done; \
	  dict=""; test -f fuzz/$$t.dict && dict="-dict=fuzz/$$t.dict"; \
	  echo "== fuzz-parsers: $$t for $(FUZZ_TIME) s"; \
	  $(CARGO) +nightly fuzz run $$t fuzz/corpus/$$t $$dirs -- \
	    -max_total_time=$(FUZZ_TIME) -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 $$dict || exit 1; \
	done

## demo: build jit-bench, assemble the example shaders, run them on the best backend beside the
## interpreter and print the table (quick mode, a few seconds after the build).
demo:
	$(CARGO) build --release --bin jit-bench
	$(CARGO) run -q --release --bin jit-bench -- --quick --backend auto

clean:
	$(CARGO) clean

## header: regenerate capi/include/picajit.h (cbindgen runs in capi's build script; a test
## fails while the committed header differs from its output).
header:
	$(CARGO) build -q -p picajit-capi
	cp "$$(ls -t $$(find target/debug/build -path '*picajit-capi-*/out/picajit.h') | head -1)" capi/include/picajit.h
