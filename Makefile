# picajit — the commands a newcomer and CI run. `make test` is what CI runs (.ci/run).
CARGO ?= cargo
SHARED ?= ../shared
CORPUS ?= $(SHARED)/corpus/shbin
DEMO_SHBIN ?= $(CORPUS)/lovebrew__lovepotion__main_v_pica.shbin
SECONDS ?= 600
FUZZ_TIME ?= 60
FUZZ_TARGETS ?= shbin asm pcas compile_run
PICAJIT = $(or $(CARGO_TARGET_DIR),target)/release/picajit

.PHONY: all setup lint test test-fast bench fuzz fuzz-parsers demo clean

all: test

## setup: check the toolchain pieces the other targets need.
setup:
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust (rustup) first"; exit 1; }
	@$(CARGO) fmt --version >/dev/null 2>&1 || { echo "rustfmt missing: rustup component add rustfmt"; exit 1; }
	@$(CARGO) clippy --version >/dev/null 2>&1 || { echo "clippy missing: rustup component add clippy"; exit 1; }
	@test -d $(CORPUS) || echo "warning: $(CORPUS) not found; corpus tests need the shared/ folder beside the repo"
	@echo "setup: toolchain ok ($$($(CARGO) --version))"

## lint: formatting and clippy, warnings are errors.
lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## test: lint, every unit and integration test (the regression corpus tests/regress included),
## the exhaustive EX2/LG2 check (release, all cores) and a fixed-seed differential fuzz slice:
## 20,000 programs on the interpreter and every backend this host can run.
test: lint test-fast
	$(CARGO) test --release --test float_exhaustive
	$(CARGO) build --release --bin picajit
	$(PICAJIT) fuzz --cases 20000 --seed 1

## test-fast: the unit and integration tests only.
test-fast:
	$(CARGO) test --workspace

## bench: criterion benches (they arrive with the JIT).
bench:
	$(CARGO) bench --workspace

## fuzz: long differential fuzzing run on every backend, SECONDS=600 by default; failures
## are minimized into fuzz-failures/ with a report and a replay command.
fuzz:
	$(CARGO) build --release --bin picajit
	$(PICAJIT) fuzz --seconds $(SECONDS) --seed $$(date +%s)

## fuzz-parsers: cargo-fuzz (libFuzzer, nightly) on the SHBIN reader, the assembler, the PCAS
## reader and compile-and-run, FUZZ_TIME=60 seconds each; installs cargo-fuzz if missing.
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
	  esac; \
	  dirs=""; for d in $$seeds; do test -d $$d && dirs="$$dirs $$d"; done; \
	  dict=""; test -f fuzz/$$t.dict && dict="-dict=fuzz/$$t.dict"; \
	  echo "== fuzz-parsers: $$t for $(FUZZ_TIME) s"; \
	  $(CARGO) +nightly fuzz run $$t fuzz/corpus/$$t $$dirs -- \
	    -max_total_time=$(FUZZ_TIME) -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 $$dict || exit 1; \
	done

## demo: describe a real homebrew shader and run it on seeded random vertices.
demo:
	$(CARGO) build --release --bin picajit
	$(PICAJIT) info $(DEMO_SHBIN)
	$(PICAJIT) run $(DEMO_SHBIN) --vertices 6 --seed 1
	$(PICAJIT) asm examples/shaders/lighting.v.pica -o target/lighting.shbin -h target/lighting.h
	$(PICAJIT) disasm target/lighting.shbin
	$(PICAJIT) run target/lighting.shbin --vertices 4 --seed 1

clean:
	$(CARGO) clean
