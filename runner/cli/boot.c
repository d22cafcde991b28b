// SPDX-License-Identifier: MIT
/* boot.c: umlbed boot: the runner's own boot of one kernel, for the harnesses that talk to the agent or init themselves. */
#include "boot.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kns.h"
#include "umlbed.h"
#include "wall.h"

static const char *boot_usage =
    "usage: umlbed boot --root DIR --dir DIR [--kernel PATH] [--mem SIZE] [--cmdline STR]\n"
    "                   [--umid ID] [--time-travel] [--print]\n"
    "Boots one UML kernel as umlbed run boots it: hostfs=DIR (the jail) is its root, DIR/umlbed-agent its\n"
    "init; this process's descriptors 0 and 1 are its console, 3 and 4 the agent's serial line. --dir is the\n"
    "instance's own folder (uml_dir, UML's TMPDIR). --print prints the command line instead of running it.\n"
    "--kernel must be a UML kernel, --root and --dir folders, --umid one name (letters, digits, '.', '_', '-'),\n"
    "--cmdline only the options umlbed run --cmdline takes (umlbed(1)).\n";

/* The options into o (and print); 0, 1 after --help, or 2 after a usage message. */
static int boot_options(int argc, char **argv, umb_vm_options *o, int *print) {
  static const struct option opts[] = {{"root", 1, 0, 'r'},  {"dir", 1, 0, 'd'},         {"kernel", 1, 0, 'k'},
                                       {"mem", 1, 0, 'm'},   {"cmdline", 1, 0, 'c'},     {"umid", 1, 0, 'u'},
                                       {"print", 0, 0, 'p'}, {"time-travel", 0, 0, 't'}, {"help", 0, 0, 'h'},
                                       {0, 0, 0, 0}};
  optind = 2;
  for (int c; (c = getopt_long(argc, argv, "h", opts, NULL)) != -1;) {
    switch (c) {
      case 'r':
        o->root = optarg;
        break;
      case 'd':
        o->dir = optarg;
        break;
      case 'k':
        o->kernel = optarg;
        break;
      case 'm':
        o->mem = optarg;
        break;
      case 'c':
        o->cmdline = optarg;
        break;
      case 'u':
        o->umid = optarg;
        break;
      case 'p':
        *print = 1;
        break;
      case 't':
        o->time_travel = 1;
        break;
      case 'h':
        fputs(boot_usage, stdout);
        return 1;
      default:
        fputs(boot_usage, stderr);
        return 2;
    }
  }
  if (optind != argc || o->root == NULL || o->dir == NULL || o->kernel == NULL) {
    fputs(boot_usage, stderr);
    return 2;
  }
  return 0;
}

/* What the options name is what it should be: a UML kernel, two folders (made absolute in root and dir), a plain
 * umid, a memory size and a command line of the allow-list. 0, or 2 after a message. */
static int boot_check(umb_vm_options *o, char *root, char *dir) {
  /* What this process execs must be a UML kernel: anything else would run with the jail's arguments for nothing,
   * or run something else entirely. */
  int krc = umb_uml_kernel_check(o->kernel);
  if (krc) {
    fprintf(stderr, "umlbed boot: --kernel %s: %s\n", o->kernel,
            krc == -ENOEXEC  ? "not a UML kernel (an ELF file without UML's .uml.setup.init section)"
            : krc == -EINVAL ? "not a regular file"
            : krc == -EACCES ? "not executable"
                             : strerror(-krc));
    return 2;
  }
  /* The jail and the instance's folder are absolute folders, as the runner's are. */
  const char *names[] = {"--root", "--dir"}, *given[] = {o->root, o->dir};
  char *out[] = {root, dir};
  for (int i = 0; i < 2; i++) {
    struct stat st;
    if (realpath(given[i], out[i]) == NULL || stat(out[i], &st)) {
      fprintf(stderr, "umlbed boot: %s %s: %s\n", names[i], given[i], strerror(errno));
      return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
      fprintf(stderr, "umlbed boot: %s %s: not a folder\n", names[i], given[i]);
      return 2;
    }
  }
  o->root = root;
  o->dir = dir;
  char why[512];
  if (umb_umid_check(o->umid))
    fprintf(stderr,
            "umlbed boot: --umid wants one name of 1 to %d letters, digits, '.', '_' or '-', not starting with '.' "
            "and without '..' (got '%s')\n",
            UMB_UMID_MAX, o->umid);
  else if (umb_mem_check(o->mem))
    fprintf(stderr, "umlbed boot: --mem wants a size from 32M to 64G (got '%s')\n", o->mem);
  else if (umb_cmdline_check(o->cmdline, why, sizeof why))
    fprintf(stderr, "umlbed boot: --cmdline: %s\n", why);
  else
    return 0;
  return 2;
}

/* The namespaces of a run (wall.h), and the host read-only but the two folders (kns.h), with a /dev/shm as large as
 * the kernel's memory (64 MiB over, for the rest; a mem= on the command line may ask for more: then the tmpfs has
 * its default size). A host that allows no namespace boots the kernel in the host's, as before. */
static void boot_namespaces(const umb_vm_options *o) {
  unsigned long long mem = 0;
  umb_mem_bytes(o->mem, &mem);
  const char *rw[] = {o->root, o->dir};
  if (umb_wall_private_ns(0) == 0)
    umb_kns_view(rw, 2, o->cmdline && strstr(o->cmdline, "mem=") ? UMB_KNS_SHM_DEFAULT : mem + (64ull << 20));
}

int umb_boot_main(int argc, char **argv) {
  umb_vm_options o = {.kernel = getenv("UMLBED_KERNEL"), .mem = "64M", .umid = "umlbed-boot", .cpu = -1};
  int print = 0;
  char root[PATH_MAX], dir[PATH_MAX];
  int rc = boot_options(argc, argv, &o, &print);
  if (rc) return rc == 1 ? 0 : rc;
  if ((rc = boot_check(&o, root, dir))) return rc;
  if (!print) boot_namespaces(&o);
  umb_vm_command cmd;
  rc = umb_vm_command_make(&o, !print, &cmd);
  if (rc) {
    fprintf(stderr, "umlbed boot: %s\n", strerror(-rc));
    return 2;
  }
  if (print) {
    for (char *const *a = cmd.argv; *a; a++) printf("%s\n", *a);
    umb_vm_command_free(&cmd);
    return 0;
  }
  /* As root, the guest's root folder and the instance's are handed to the unprivileged user the kernel runs as. */
  if ((rc = umb_wall_hand_over(o.root, 1)) || (rc = umb_wall_hand_over(o.dir, 1))) {
    fprintf(stderr, "umlbed boot: handing the folders to uid %d: %s\n", UMB_WALL_UID, strerror(-rc));
    umb_vm_command_free(&cmd);
    return 2;
  }
  rc = umb_wall_exec(cmd.wall, cmd.argv, cmd.envp);
  umb_vm_command_free(&cmd);
  return rc;
}
