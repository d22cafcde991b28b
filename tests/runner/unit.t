#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# unit.t: the C unit tests (codec, scanner on golden logs) and vm tests against a fake UML.
. "$(dirname "$0")/common.sh"
"$UMLBED_TEST" "$SRC/tests/data"
