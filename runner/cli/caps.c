// SPDX-License-Identifier: MIT
/* caps.c: what caps each run and instance has on this host, said in a line of the TAP header. */
#include "caps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wall.h"

/* The cgroup v2 path of this process ("0::/PATH" in /proc/self/cgroup), in out; 0 if there is none. */
static int own_cgroup(char *out, size_t size) {
  FILE *f = fopen("/proc/self/cgroup", "re");
  char line[4096];
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    if (!strncmp(line, "0::", 3)) {
      line[strcspn(line, "\n")] = '\0';
      snprintf(out, size, "%s", line + 3);
      found = 1;
    }
  if (f) fclose(f);
  return found;
}

/* Where the cgroup v2 hierarchy is mounted (the mount point of /proc/self/mountinfo's cgroup2), in out. */
static int v2_mount(char *out, size_t size) {
  FILE *f = fopen("/proc/self/mountinfo", "re");
  char line[4096], mp[4096];
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f)) {
    char *dash = strstr(line, " - cgroup2 ");
    if (dash && sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1) {
      snprintf(out, size, "%s", mp);
      found = 1;
    }
  }
  if (f) fclose(f);
  return found;
}

/* Whether the controllers file at dir names both memory and pids. */
static int has_controllers(const char *dir) {
  char path[8400], line[1024] = "";
  snprintf(path, sizeof path, "%s/cgroup.controllers", dir);
  FILE *f = fopen(path, "re");
  if (f == NULL) return 0;
  if (fgets(line, sizeof line, f) == NULL) line[0] = '\0';
  fclose(f);
  char padded[1100];
  snprintf(padded, sizeof padded, " %s", line);
  padded[strcspn(padded, "\n")] = ' ';
  return strstr(padded, " memory ") && strstr(padded, " pids ");
}

const char *umb_caps_line(char *buf, size_t size) {
  char cg[4096], mp[4096], dir[8200];
  const char *why;
  if (!own_cgroup(cg, sizeof cg))
    why = "this host has no cgroup v2 hierarchy";
  else if (!v2_mount(mp, sizeof mp))
    why = "cgroup v2 is not mounted here";
  else if (snprintf(dir, sizeof dir, "%s%s", mp, cg), !has_controllers(dir))
    why = "cgroup v2 here has no memory and pids controllers (bound to cgroup v1, or not delegated)";
  else if (access(dir, W_OK))
    why = "the runner's cgroup is not delegated to it";
  else
    why = "umlbed makes none yet";
  /* The wall's limit: $UMLBED_NPROC may lower it. */
  const char *e = getenv("UMLBED_NPROC");
  long nproc = e && *e ? strtol(e, NULL, 10) : UMB_WALL_NPROC;
  if (nproc < 1 || nproc > UMB_WALL_NPROC) nproc = UMB_WALL_NPROC;
  snprintf(buf, size,
           "caps: each instance: a tmpfs of its memory and 64 MiB for its memory file, %ld processes; each run: "
           "--lua-memory; no cgroup v2 memory.max or pids.max per run (%s)",
           nproc, why);
  return buf;
}
