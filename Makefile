# umlbed: builds the patched UML kernels, the guest agent and the runner, runs the scenarios (make) and the tests (make check).

BUILD ?= $(CURDIR)/build
VARIANTS ?= full gpl-only
# The Linux 6.12 generation (patches/6.12/, uml-kernel/fixes/6.12/): make GEN=6.12 builds and runs it; make check
# always covers both generations.
VARIANTS_612 ?= full-6.12 gpl-only-6.12
GEN ?= 6.1
VARIANT ?=
# -j auto: the runner adds concurrent instances only while they raise throughput (docs/umlbed.1).
JOBS ?= auto
export BUILD

gen_variants := $(if $(filter 6.12,$(GEN)),$(VARIANTS_612),$(VARIANTS))
kernel_variants := $(if $(VARIANT),$(VARIANT),$(gen_variants))
mutant_suffix := $(if $(filter 6.12,$(GEN)),-6.12)
UMLBED := $(BUILD)/runner/umlbed

.PHONY: all deps kernel modules guest runner scenarios check checkpatch mutants coverage kselftests clean distclean help

# The README's first command: build everything, then run the scenario folder.
all: scenarios

help:
	@echo "make            build everything and run scenarios/"
	@echo "make check      build everything and run the tests (prove)"
	@echo "make kernel     build the patched UML kernels ($(VARIANTS)); VARIANT=name for one, GEN=6.12 for $(VARIANTS_612)"
	@echo "make modules    build the test modules against each kernel variant"
	@echo "make guest      build the static guest agent"
	@echo "make runner     build the umlbed runner"
	@echo "make checkpatch run each generation's checkpatch.pl --strict on its series, patches/6.1/ and patches/6.12/"
	@echo "make coverage   build the gcov kernel, run scenarios/ on it, report the series' line and branch coverage (GEN=6.12 too)"
	@echo "make pack       one tarball for shards on other machines: umlbed run --pack build/umlbed-pack.tar.gz"
	@echo "make bench      what an invalidation costs: bench/scenarios' sweeps, results.json and plots in build/bench"
	@echo "make kselftests the kernel's own mm selftests, each in a fresh guest of the mm variant, against tests/kselftests/expected-6.1 (GEN=6.12 too)"
	@echo "make mutants    build the deliberately broken kernels and show which scenarios catch each (GEN=6.12 too)"
	@echo "make soak       run scenarios/ again and again under load (bench/soak.sh: SOAK_RUNS, SOAK_CONDITIONS)"

deps:
	@scripts/deps.sh

# Kernel builds run one after the other: two at once would only fight over two cores.
kernel: deps
	@for v in $(kernel_variants); do uml-kernel/build.sh $$v || exit 1; done

modules: kernel
	@for v in $(kernel_variants); do $(MAKE) -s -C uml-kernel/modules VARIANT=$$v || exit 1; done

guest: deps
	@$(MAKE) -s -C guest

runner: deps
	@$(MAKE) -s -C runner

# GEN=6.12 builds and runs the Linux 6.12 generation instead (make check covers both).
scenarios: kernel modules guest runner
	$(UMLBED) run -j $(JOBS) --generation $(GEN) scenarios/

# The README's second command: every test through prove (TAP), on both kernel generations: the series, smoke and
# gdb tests and the scenario suite run on 6.1 and 6.12 variants, the agent's tests on each generation's full kernel.
# The 6.1 coverage kernel is built too, for tests/coverage/merge.t (make coverage runs the whole suite on it), and
# the mm kernels of both generations for tests/kselftests/kselftests.t (make kselftests).
# The runner's tests run twice, the second time against its ASan/UBSan build; valgrind checks the runner's unit
# tests and fake-UML runs first. prove --directives prints every SKIP line, so the log says what did not run.
check: guest runner
	@$(MAKE) -s kernel modules GEN=6.1 VARIANT=
	@$(MAKE) -s kernel modules GEN=6.12 VARIANT=
	@$(MAKE) -s kernel modules GEN=6.1 VARIANT=coverage
	@$(MAKE) -s kernel GEN=6.1 VARIANT=mm
	@$(MAKE) -s kernel GEN=6.12 VARIANT=mm-6.12
	@$(MAKE) -s -C guest host
	@$(MAKE) -s -C tests/agent
	@$(MAKE) -s -C runner SAN=1
	@$(MAKE) -s -C runner check-valgrind
	UMLBED_BUILD=$(BUILD) UMLBED_VARIANTS="$(VARIANTS) $(VARIANTS_612)" prove --directives -r tests/
	UMLBED_BUILD=$(BUILD) UMLBED_KERNEL=$(BUILD)/kernel/full-6.12/obj/linux prove --directives tests/agent/agent.t
	UMLBED_BUILD=$(BUILD) UMLBED_RUNNER_DIR=$(BUILD)/runner-san prove --directives tests/runner/

# The kernel's own mm selftests (6.1's selftests/vm, 6.12's selftests/mm with GEN=6.12) in the bed: built static
# from the same Debian source (tests/kselftests/build.sh), each run in a fresh guest of the mm variant
# (uml-kernel/config/mm.config) as upstream's run_vmtests.sh runs it, and compared with
# tests/kselftests/expected-GEN in both directions. Reports in build/kselftests/GEN/: results.json and junit.xml.
kselftest_variant := mm$(mutant_suffix)
kselftests: guest runner
	@$(MAKE) -s kernel GEN=$(GEN) VARIANT=$(kselftest_variant)
	@tests/kselftests/build.sh $(GEN) >/dev/null
	UMLBED_KSELFTESTS_GEN=$(GEN) $(UMLBED) run -j $(JOBS) --variant $(kselftest_variant) \
		--json $(BUILD)/kselftests/$(GEN)/results.json --junit $(BUILD)/kselftests/$(GEN)/junit.xml tests/kselftests/vm.lua

# Each series against its own generation's checkpatch.pl (build.sh --tree extracts the pristine tree if needed).
# Absolute paths: checkpatch.pl checks a relative path that git tracks as a source file (--file), not as a patch.
checkpatch: deps
	@for g in 6.1 6.12; do \
		tree=$$(uml-kernel/build.sh --tree $$g) || exit 1; \
		for p in $$(grep -v '^#' patches/$$g/series); do \
			$$tree/scripts/checkpatch.pl --strict --no-tree $(CURDIR)/patches/$$g/$$p || exit 1; \
		done; \
	done

# The series' coverage: the suite on the gcov kernel (uml-kernel/variants/coverage), then the report and its gate
# (tests/coverage/threshold): BUILD/coverage/coverage/report/html/index.html. check builds the 6.1 coverage kernel
# too, for tests/coverage/merge.t; this target runs the whole suite on it.
coverage: guest runner
	@scripts/deps.sh
	@uml-kernel/build.sh coverage$(mutant_suffix)
	@$(MAKE) -s -C uml-kernel/modules VARIANT=coverage$(mutant_suffix)
	JOBS=$(JOBS) tests/coverage/run.sh $(GEN)

# One tarball with what a shard needs (runner, agent, kernels and modules of VARIANTS, scenarios, manifest):
# BUILD/umlbed-pack.tar.gz, for umlbed run --pack on machines with only the runtime libraries (docs/ci/).
.PHONY: pack
pack: kernel modules guest runner
	VARIANTS="$(VARIANTS)" scripts/pack.sh $(BUILD)/umlbed-pack.tar.gz

# What an invalidation costs: the sweeps of bench/scenarios/, results.json and plots in BUILD/bench (not in check).
.PHONY: bench
bench: kernel modules guest runner
	@scripts/deps.sh
	$(UMLBED) bench --out $(BUILD)/bench

# Not part of check: three more kernel builds. Fails unless some scenario run FAILS (an expectation, not a crash
# or an error) on each broken kernel.
mutants: kernel modules guest runner
	uml-kernel/mutants.sh broken-rounding$(mutant_suffix) broken-pgoff$(mutant_suffix) broken-keep-cows$(mutant_suffix)

# Not part of check: the whole suite SOAK_RUNS times per hostile condition (-j, taskset, stress-ng neighbours,
# time travel); fails on any verdict but ok or SKIP. KERNEL= or VARIANT= choose the kernel.
.PHONY: soak
soak: kernel modules guest runner
	UMLBED=$(UMLBED) bench/soak.sh

clean:
	rm -rf $(BUILD)/guest $(BUILD)/runner $(BUILD)/runner-san $(BUILD)/kernel/*/modules

distclean:
	rm -rf $(BUILD)
