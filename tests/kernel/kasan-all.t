#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kasan-all.t: points.t with every generation's KASAN kernel a prerequisite (make check-slow), where make check builds only the default generation's.
UMLBED_POINTS_ALL_KASAN=1 exec bash "$(dirname "$0")/points.t" "$@"
