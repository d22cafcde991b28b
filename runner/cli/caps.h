/* SPDX-License-Identifier: MIT */
/* caps.h: the caps of each run and instance on this host, for the TAP header. */
#ifndef UMLBED_CAPS_H
#define UMLBED_CAPS_H

#include <stddef.h>

/* One line (without "# ") saying what caps an instance and a run have, and why there is no cgroup per run here:
 * the clear word where cgroups are not available. buf, for the caller to print. */
const char *umb_caps_line(char *buf, size_t size);

#endif
