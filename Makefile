# SPDX-License-Identifier: MIT
# umlbed: builds the patched UML kernels, the guest agent and the runner, runs the scenarios (make) and the tests (make check).

BUILD ?= $(CURDIR)/build
# The kernel generations are data, one file each in uml-kernel/generations/ (its README.md has the keys): GEN picks
# one (default: the one uml-kernel/generations/default names), make check covers them all.
generation := uml-kernel/generation.sh
GENERATIONS := $(shell $(generation) list)
DEFAULT_GEN := $(shell $(generation) default)
GEN ?= $(DEFAULT_GEN)
$(if $(filter $(GEN),$(GENERATIONS)),,$(error GEN=$(GEN): no such generation (uml-kernel/generations/ has $(GENERATIONS))))
# gen_key,GEN,KEY: a key of a generation's file.
gen_key = $(shell $(generation) get $(1) $(2))
VARIANTS ?= $(call gen_key,$(GEN),variants)
VARIANT ?=
# -j auto: the runner adds concurrent instances only while they raise throughput (docs/umlbed.1).
JOBS ?= auto
export BUILD

kernel_variants = $(if $(VARIANT),$(VARIANT),$(VARIANTS))
UMLBED := $(BUILD)/runner/umlbed

.PHONY: all deps kernel modules guest runner scenarios check check-slow checkpatch broken historic mutate coverage kselftests install uninstall clean distclean help explore explore-historic

# The README's first command: build everything, then run the scenario folder.
all: scenarios

help:
	@echo "make            build everything and run scenarios/"
	@echo "make check      build the kernels the tests boot and run the tests (prove), with the table of its time"
	@echo "make check-slow the tests make check leaves out (tests/outside-check): mm selftests, coverage merge and smoke, bisect, every KASAN kernel"
	@echo "make mutate-sample  a sample of make mutate's last run judged again by a kbuild of each mutant: the verdicts compared"
	@echo "make check-slurm a whole mutation run as a Slurm job array on a one-node cluster started from Debian's packages"
	@echo "make kernel     build the patched UML kernels of generation GEN ($(GEN): $(VARIANTS)); VARIANT=name for one"
	@echo "                GEN is one of $(GENERATIONS) (uml-kernel/generations/), default $(DEFAULT_GEN)"
	@echo "make modules    build the test modules against each kernel variant"
	@echo "make guest      build the static guest agent"
	@echo "make runner     build the umlbed runner"
	@echo "make checkpatch run each generation's checkpatch.pl --strict on its series: $(foreach g,$(GENERATIONS),$(call gen_key,$(g),series)/)"
	@echo "make coverage   build the gcov kernel ($(call gen_key,$(GEN),coverage)), run scenarios/ on it, report the series' line and branch coverage"
	@echo "make pack       one tarball for shards on other machines: umlbed run --pack build/umlbed-pack.tar.gz"
	@echo "make bench      what an invalidation costs: bench/scenarios' sweeps, results.json and plots in build/bench"
	@echo "make kselftests the kernel's own mm selftests, each in a fresh guest of the mm variant ($(call gen_key,$(GEN),mm)), against $(call gen_key,$(GEN),kselftests)"
	@echo "make mutate     mutation testing of the $(GEN) series: every mutant in one schema kernel, each run on the runs that reach it;"
	@echo "                the score, report and gate in build/mutate/$(GEN)/report (MUTATE_ARGS=--all, --shard K/N, --only ID;"
	@echo "                MUTATE_VARIANT=full: judged by the suite's kernel, not the judge variant)"
	@echo "make broken     build the deliberately broken kernels ($(call gen_key,$(GEN),broken) $(call gen_key,$(GEN),broken-races)) and check that some scenario"
	@echo "                catches each, in TAP (BROKEN_RUNS= runs of the suite, 1)"
	@echo "make historic   build the kernels that re-create real faults of the API's history (uml-kernel/historic/corpus)"
	@echo "                and check that each is caught in 10 runs of 10 and its fixed kernel passes (HISTORIC_RUNS=,"
	@echo "                FAULT='NAME...' for some faults only)"
	@echo "make explore    the explorer's campaign on GEN's full kernel: generated mm operations under PCT schedules of the"
	@echo "                kernel's automatic points, checked against their sequential orders (EXPLORE_SECONDS, EXPLORE_ARGS)"
	@echo "make explore-historic  the historic races and race broken kernels found by the explorer alone, each within"
	@echo "                EXPLORE_SECONDS and replayed 10 of 10; the fixed kernels find nothing (GEN= for one generation)"
	@echo "make install    the runner, man page, agent, kernels and modules under PREFIX (/usr/local), DESTDIR for staging"
	@echo "make uninstall  removes what make install listed in PREFIX/lib/umlbed/MANIFEST"
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

# GEN= builds and runs another generation instead (make check covers them all). The run's JSON report and the key of
# its inputs (scripts/scenario-key.sh) go to BUILD/scenarios/: make check's suite.t reuses a passed run of the same
# key instead of running the same suite on the same kernel again. The key is taken before the run, and written only
# after it passed.
scenarios: kernel modules guest runner
	@mkdir -p $(BUILD)/scenarios && rm -f $(BUILD)/scenarios/$(GEN).key
	@key=$$(BUILD=$(BUILD) scripts/scenario-key.sh full$(call gen_key,$(GEN),suffix)) && \
	echo "$(UMLBED) run -j $(JOBS) --generation $(GEN) --json $(BUILD)/scenarios/$(GEN).json scenarios/" && \
	$(UMLBED) run -j $(JOBS) --generation $(GEN) --json $(BUILD)/scenarios/$(GEN).json scenarios/ && \
	echo "$$key" >$(BUILD)/scenarios/$(GEN).key

# What a user outside this repository needs (scripts/install.sh has the layout): PREFIX/bin/umlbed and the rest
# under PREFIX/lib/umlbed, PREFIX/share. It installs what is built; it builds nothing itself, so it may run as root
# after a make as oneself.
PREFIX ?= /usr/local
DESTDIR ?=
# The paths reach the script through the environment, each whole: on the shell's command line a blank would cut
# PREFIX in two and make its second half a DESTDIR.
install uninstall: export UMLBED_INSTALL_PREFIX = $(PREFIX)
install uninstall: export UMLBED_INSTALL_DESTDIR = $(DESTDIR)
install:
	@scripts/install.sh install "$$UMLBED_INSTALL_PREFIX" "$$UMLBED_INSTALL_DESTDIR"

uninstall:
	@scripts/install.sh uninstall "$$UMLBED_INSTALL_PREFIX" "$$UMLBED_INSTALL_DESTDIR"

# The README's second command: every test through prove (TAP), on every kernel generation (scripts/check.sh): each
# generation's variants (full, gpl-only), the default generation's KASAN kernel and the runner's sanitizer build are built, then prove
# runs tests/ two files at a time (valgrind over the runner among them). It ends with the table of where the time
# went (also in BUILD/check-times.json); tests/budget holds what it may cost and bench/check-cost.sh measures it.
# The mm selftests, the coverage merge and the bisect builds (make check-slow), the broken kernels (make broken) and
# mutation testing (make mutate) are not part of it: HACKING.md says why and what each costs. Each of those targets
# has its cheapest smoke in it instead, or a reason why it cannot (tests/targets/smokes).
# tests/lint.t, in the prove run, holds every shell script to shellcheck (.shellcheckrc) and every Lua file to
# luacheck (.luacheckrc) and luac5.4 -p, as tests/runner/style.t holds the C to clang-format: a finding fails it.
# Each test file's whole output is kept in BUILD/check-logs/ (scripts/check-log.pl), and a failed check ends with
# the failing lines and their diagnostics.
check: guest runner
	@scripts/check.sh

# The test files of tests/outside-check, each after the kernels it boots (its generation key, of every generation or
# the default one): the mm selftests, the coverage data's merge and the smoke of make coverage and make mutate, the
# bisect builds, every KASAN kernel. HACKING.md says when to run it.
.PHONY: check-slow
check-slow: guest runner
	@kernels=$$(scripts/outside-check.sh kernels) && scripts/outside-check.sh files >/dev/null || exit 1; \
	echo "$$kernels" | while read -r g v; do $(MAKE) -s kernel modules GEN=$$g VARIANT=$$v || exit 1; done
	@rm -rf $(BUILD)/check-slow-logs
	UMLBED_BUILD=$(BUILD) UMLBED_CHECK_LOGS=$(BUILD)/check-slow-logs prove --directives --exec $(CURDIR)/scripts/check-log.pl \
		$$(scripts/outside-check.sh files) || \
		{ scripts/check-log.pl --summary $(BUILD)/check-slow-logs; exit 1; }

# The mutation run on a one-node Slurm cluster that tests/mutate/slurm.t starts itself from Debian's packages (munge,
# slurmctld, slurmd, slurm-client: installed here, for this target only): one bundle (mutate.pl pack), a job array of
# shards, joined by report, compared with the bundle judged unsharded. Not part of check or check-slow: it judges the
# whole mutant set twice (MUTATE_ARGS= chooses fewer, MUTATE_VARIANT= the judging kernel).
.PHONY: check-slurm
check-slurm: guest runner
	@scripts/deps.sh munge slurmctld slurmd slurm-client
	UMLBED_SLURM=1 UMLBED_BUILD=$(BUILD) MUTATE_VARIANT=$(MUTATE_VARIANT) prove -v tests/mutate/slurm.t

# The kernel's own mm selftests (selftests/vm before Linux 6.3, selftests/mm since: the generation's "selftests")
# in the bed: built static from the same Debian source (tests/kselftests/build.sh), each run in a fresh guest of the
# generation's mm variant (uml-kernel/config/mm.config) as upstream's run_vmtests.sh runs it, and compared with the
# generation's table ("kselftests") in both directions. Reports in build/kselftests/GEN/: results.json and junit.xml.
kselftests: kselftest_variant = $(call gen_key,$(GEN),mm)
kselftests: guest runner
	@$(MAKE) -s kernel GEN=$(GEN) VARIANT=$(kselftest_variant)
	@tests/kselftests/build.sh $(GEN) >/dev/null
	UMLBED_KSELFTESTS_GEN=$(GEN) $(UMLBED) run -j $(JOBS) --variant $(kselftest_variant) \
		--json $(BUILD)/kselftests/$(GEN)/results.json --junit $(BUILD)/kselftests/$(GEN)/junit.xml tests/kselftests/vm.lua

# Each series against its own generation's checkpatch.pl (build.sh --tree extracts the pristine tree if needed).
# Absolute paths: checkpatch.pl checks a relative path that git tracks as a source file (--file), not as a patch.
checkpatch: deps
	@for g in $(GENERATIONS); do \
		tree=$$(uml-kernel/build.sh --tree $$g) || exit 1; \
		series=$$($(generation) get $$g series) || exit 1; \
		patches=$$($(generation) series $$series) || exit 1; \
		for p in $$patches; do \
			$$tree/scripts/checkpatch.pl --strict --no-tree $(CURDIR)/$$p || exit 1; \
		done; \
	done

# The series' coverage: the suite on the generation's gcov kernel (its "coverage" variant), then the report and its
# gate (tests/coverage/threshold): BUILD/coverage/VARIANT/report/html/index.html, and the reach data make mutate
# reads (reach.txt, reach-lines.json: docs/coverage.md). make check configures every coverage variant
# (tests/kernel/configs.t); make check-slow builds the default generation's and runs this target's smoke on it
# (tests/targets/reach.t); this target runs the whole suite on it.
coverage: coverage_variant = $(call gen_key,$(GEN),coverage)
coverage: guest runner
	@scripts/deps.sh
	@uml-kernel/build.sh $(coverage_variant)
	@$(MAKE) -s -C uml-kernel/modules VARIANT=$(coverage_variant)
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

# Mutation testing of the series (uml-kernel/mutate.pl): every mutant of GEN's series built into one schema kernel in
# a tree of its own (BUILD/mutate/), each mutant's object compiled alone for TCE, each mutant judged on the runs that
# reach its line (make coverage's line reach, else every run); then the JSON and HTML report and the gate of
# tests/mutate/ (threshold, equivalent). Not part of check.
# The kernel that judges is the judge variant: pattern stack init and fault injection, so a deleted store or a
# failed allocation shows (MUTATE_VARIANT=full judges with the suite's own kernel).
MUTATE_VARIANT ?= judge
mutate: kernel modules guest runner
	uml-kernel/mutate.pl run --gen $(GEN) --variant $(MUTATE_VARIANT) $(MUTATE_ARGS) --out $(BUILD)/mutate/$(GEN)/all
	uml-kernel/mutate.pl report --gen $(GEN) --out $(BUILD)/mutate/$(GEN)/report $(BUILD)/mutate/$(GEN)/all/results.json

# The schema's own check: a sample of make mutate's last whole run (every verdict, at least 40 mutants) judged again
# by the schema kernel and by a kbuild of each mutant alone, the method the schema replaced; TAP, one line a mutant,
# and exit 1 when a verdict differs. Not part of check: about 20 s a kbuild.
.PHONY: mutate-sample
mutate-sample: kernel modules guest runner
	uml-kernel/mutate.pl sample --gen $(GEN) --variant $(MUTATE_VARIANT) --from $(BUILD)/mutate/$(GEN)/all/results.json \
		--out $(BUILD)/mutate/$(GEN)/sample

# Not part of check: six more kernel builds. Fails unless some scenario run FAILS (an expectation, not a crash
# or an error) on each broken kernel in each of BROKEN_RUNS runs of the suite (1); on a broken race (broken-races,
# built with KASAN) a CRASHED run with its kernel report counts too, since a use of freed memory or an unlocked flush
# is what those kernels get wrong. TAP, from uml-kernel/catch.sh, as make historic's.
BROKEN_RUNS ?= 1
broken: kernel modules guest runner
	uml-kernel/catch.sh --runs $(BROKEN_RUNS) --gen $(GEN) broken

# Not part of check: one kernel build per fault. Re-finds the real faults of uml-kernel/historic/corpus, each re-created
# by a patch of its generation: every generation's (or GEN='6.1 6.12' names them), HISTORIC_RUNS runs each (10);
# FAULT='NAME...' only those faults.
HISTORIC_RUNS ?= 10
historic: kernel guest runner
	uml-kernel/catch.sh --runs $(HISTORIC_RUNS) $(foreach f,$(FAULT),--fault $(f)) $(if $(filter command line,$(origin GEN)),$(foreach g,$(GEN),--gen $(g))) historic

# The explorer (docs/explore.md): cases of mm operations generated from a seed, each under schedules of the kernel's
# automatic points, checked against their sequential orders. Not part of check, which runs scenarios/explore.lua's
# short list of seeds; EXPLORE_ARGS adds umlbed explore's options (--seed, --shard K/N, --pairs, --depth, --toward).
EXPLORE_SECONDS ?= 600
explore: kernel guest runner
	$(UMLBED) explore --generation $(GEN) --seconds $(EXPLORE_SECONDS) $(EXPLORE_ARGS)

# Not part of check: one kernel build per historic fault and race broken variant, each explored for at most
# EXPLORE_SECONDS with no hand-placed point, its replay run 10 times; then the fixed kernel (TAP).
explore-historic: kernel guest runner
	uml-kernel/explore-historic.sh --seconds $(EXPLORE_SECONDS) $(if $(filter command line,$(origin GEN)),$(GEN))

# Not part of check: the whole suite SOAK_RUNS times per hostile condition (-j, taskset, stress-ng neighbours,
# time travel); fails on any verdict but ok or SKIP. KERNEL= or VARIANT= choose the kernel.
.PHONY: soak
soak: kernel modules guest runner
	UMLBED=$(UMLBED) bench/soak.sh

clean:
	rm -rf $(BUILD)/guest $(BUILD)/runner $(BUILD)/runner-san $(BUILD)/kernel/*/modules

distclean:
	rm -rf $(BUILD)
