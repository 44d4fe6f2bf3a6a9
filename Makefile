# picajit — the commands a newcomer and CI run. `make test` is what CI runs (.ci/run).
CARGO ?= cargo
SHARED ?= ../shared
CORPUS ?= $(SHARED)/corpus/shbin
SECONDS ?= 600
PICAJIT = $(CARGO) run -q --release --bin picajit --

.PHONY: all setup lint test test-fast bench fuzz demo clean

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
	@$(CARGO) fmt --version >/dev/null 2>&1 || { echo "rustfmt missing: rustup component add rustfmt"; exit 1; }
	@$(CARGO) clippy --version >/dev/null 2>&1 || { echo "clippy missing: rustup component add clippy"; exit 1; }
	@test -d $(CORPUS) || echo "warning: $(CORPUS) not found; corpus tests need the shared/ folder beside the repo"
	@echo "setup: toolchain ok ($$($(CARGO) --version))"

## lint: formatting and clippy, warnings are errors.
lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## test: lint, every unit and integration test (every program also on AArch64, under qemu-user
## on other hosts), the exhaustive EX2/LG2 check (release, all cores) and a fixed-seed fuzz
## slice.
test: lint test-fast
	$(CARGO) test --release --test float_exhaustive
	$(CARGO) build --release --bin picajit
	$(PICAJIT) fuzz --cases 20000 --seed 1

## test-fast: the unit and integration tests only.
test-fast: setup
	$(CARGO) test --workspace

## bench: criterion benches, groups compile/<shader> and execute/<backend>/<shader>/<io>
## (3–4 minutes on 2 cores; reports in target/criterion).
bench:
	$(CARGO) bench --bench compile --bench execute

## fuzz: long fuzzing run, SECONDS=600 by default.
fuzz:
	$(CARGO) build --release --bin picajit
	$(PICAJIT) fuzz --seconds $(SECONDS) --seed $$(date +%s)

## demo: build jit-bench, assemble the example shaders, run them on the best backend beside the
## interpreter and print the table (quick mode, a few seconds after the build).
demo:
	$(CARGO) build --release --bin jit-bench
	$(CARGO) run -q --release --bin jit-bench -- --quick --backend auto

clean:
	$(CARGO) clean
