# SPDX-License-Identifier: MIT
# strict.sh: strict mode for the shell tests, sourced by tests/runner/common.sh and by the tests that do without it.
# shellcheck shell=bash
# Under CI=true (as GitHub and GitLab set it; CI=1 too) or UMLBED_STRICT=1, a missing tool, kernel or input fails
# its test instead of skipping it, so a clean room that lacks something cannot pass by skipping it.
strict() { [ "${UMLBED_STRICT:-}" = 1 ] || [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; }
# prereq_result N REASON: the TAP line of test N, whose prerequisite REASON names what is missing: a SKIP, or under
# strict mode a failure.
prereq_result() {
  if strict; then echo "not ok $1 - missing prerequisite: $2"; else echo "ok $1 # SKIP $2"; fi
}
