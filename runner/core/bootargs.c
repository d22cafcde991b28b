// SPDX-License-Identifier: MIT
/* bootargs.c: what a caller may add to a UML boot: the extra kernel command line's allow-list, the umid, the kernel. */
#include "umlbed.h"
#include "path.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A word of the command line as a message shows it: printable ASCII as is, any other byte as \xNN, cut short. */
static void show_word(char *out, size_t size, const char *w, size_t len) {
  size_t o = 0;
  for (size_t i = 0; i < len && o + 5 < size; i++) {
    unsigned char ch = (unsigned char)w[i];
    if (ch > 0x20 && ch < 0x7f)
      out[o++] = (char)ch;
    else
      o += (size_t)snprintf(out + o, size - o, "\\x%02x", ch);
  }
  if (size) out[o < size ? o : size - 1] = '\0';
}

static int refuse(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t size, const char *fmt, ...) {
  if (why && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
  }
  return -EINVAL;
}

/* A decimal number of at most max_digits digits, nothing else. */
static int digits(const char *s, size_t len, size_t max_digits) {
  if (len == 0 || len > max_digits) return 0;
  for (size_t i = 0; i < len; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

static int in_set(const char *s, size_t len, const char *set) {
  for (size_t i = 0; i < len; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
          strchr(set, s[i])))
      return 0;
  return 1;
}

#define ALLOWED                                                                                             \
  "mem=SIZE (32M to 64G), kmemleak=on|off, time-travel, time-travel=inf-cpu, time-travel-start=NS, lpj=N, " \
  "umlbed.fault_around_bytes=N, quiet, UMLBED_NAME=VALUE"

/* One word of the extra command line (not empty, no blank): 0, or -EINVAL with a message naming its option. */
static int word_check(const char *w, size_t len, char *why, size_t size) {
  char shown[160];
  show_word(shown, sizeof shown, w, len);
  /* The kernel splits its command line at any white space and joins words in double quotes: a word that holds
   * either could smuggle in an option this check never saw. */
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)w[i] <= 0x20 || (unsigned char)w[i] >= 0x7f || w[i] == '"')
      return refuse(why, size, "kernel command line: '%s' holds a byte the kernel would split or join at", shown);
  const char *eq = memchr(w, '=', len);
  size_t klen = eq ? (size_t)(eq - w) : len;
  const char *v = eq ? eq + 1 : NULL;
  size_t vlen = eq ? len - klen - 1 : 0;
#define KEY(k) (klen == sizeof(k) - 1 && !memcmp(w, k, klen))
  if (KEY("quiet") && !eq) return 0;
  if (KEY("time-travel") && (!eq || (vlen == 7 && !memcmp(v, "inf-cpu", 7)))) return 0;
  if (KEY("time-travel"))
    return refuse(why, size,
                  "kernel command line: option 'time-travel' takes no value or inf-cpu (got '%s'; ext: talks to a "
                  "host socket)",
                  shown);
  if (KEY("time-travel-start") || KEY("lpj") || KEY("umlbed.fault_around_bytes")) {
    if (eq && digits(v, vlen, 19)) return 0;
    return refuse(why, size, "kernel command line: option '%.*s' wants a decimal number (got '%s')", (int)klen, w,
                  shown);
  }
  if (KEY("kmemleak")) {
    if (eq && ((vlen == 2 && !memcmp(v, "on", 2)) || (vlen == 3 && !memcmp(v, "off", 3)))) return 0;
    return refuse(why, size, "kernel command line: option 'kmemleak' wants on or off (got '%s')", shown);
  }
  if (KEY("mem")) {
    char val[32];
    if (eq && vlen < sizeof val) {
      memcpy(val, v, vlen);
      val[vlen] = '\0';
      if (umb_mem_check(val) == 0) return 0;
    }
    return refuse(why, size, "kernel command line: option 'mem' wants a size from 32M to 64G, as mem does (got '%s')",
                  shown);
  }
  if (KEY("umlbed_mutant"))
    return refuse(why, size,
                  "kernel command line: option 'umlbed_mutant' is the mutate tool's (UMLBED_MUTANT=N in umlbed's "
                  "environment), not a caller's");
#undef KEY
  /* The init's environment: the smoke tests' init reads its variant and expectations there. */
  if (klen > 7 && klen <= 64 && !memcmp(w, "UMLBED_", 7) && in_set(w + 7, klen - 7, "_") && eq && vlen <= 256 &&
      in_set(v, vlen, "._,:/+=-"))
    return 0;
  if (klen > 7 && klen <= 64 && !memcmp(w, "UMLBED_", 7))
    return refuse(why, size,
                  "kernel command line: option '%.*s' wants a value of letters, digits and ._,:/+=- (got '%s')",
                  (int)klen, w, shown);
  char key[80];
  show_word(key, sizeof key, w, klen);
  return refuse(why, size, "kernel command line: option '%s' is not allowed (allowed: " ALLOWED ")", key);
}

int umb_cmdline_check(const char *cmdline, char *why, size_t size) {
  if (why && size) why[0] = '\0';
  if (cmdline == NULL) return 0;
  /* Split as vm.c splits it into the kernel's arguments. */
  for (const char *p = cmdline; *p;) {
    p += strspn(p, " \t\n");
    size_t len = strcspn(p, " \t\n");
    if (len == 0) break;
    int rc = word_check(p, len, why, size);
    if (rc) return rc;
    p += len;
  }
  return 0;
}

int umb_mutant_arg(char *buf, size_t size) {
  const char *v = getenv("UMLBED_MUTANT");
  if (size) buf[0] = '\0';
  if (v == NULL || v[0] == '\0') return 0;
  if (!digits(v, strlen(v), 9) || v[0] == '0') {
    char shown[40];
    show_word(shown, sizeof shown, v, strlen(v));
    fprintf(stderr, "umlbed: UMLBED_MUTANT wants a mutant's number, 1 to 999999999 (got '%s')\n", shown);
    return -EINVAL;
  }
  if ((size_t)snprintf(buf, size, "umlbed_mutant=%s", v) >= size) return -E2BIG;
  return 0;
}

int umb_umid_check(const char *umid) {
  size_t len = umid ? strlen(umid) : 0;
  /* UML keeps its umid in 64 bytes with the NUL, and makes uml_dir/UMID/ of it: one safe name, never a path. */
  if (len == 0 || len > UMB_UMID_MAX || umid[0] == '.' || strstr(umid, "..") || !in_set(umid, len, "._-"))
    return -EINVAL;
  return 0;
}

/* Whether the ELF file on fd has a section named name: a few KiB read, whatever the file's size. */
static int has_section(int fd, const char *name) {
  Elf64_Ehdr eh;
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
      eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
    return 0;
  Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
  if (sh == NULL) return 0;
  size_t shsize = (size_t)eh.e_shnum * sizeof *sh;
  int found = 0;
  char *names = NULL;
  if (pread(fd, sh, shsize, (off_t)eh.e_shoff) != (ssize_t)shsize) goto out;
  Elf64_Shdr *str = &sh[eh.e_shstrndx];
  if (str->sh_size == 0 || str->sh_size > (1u << 20) || (names = malloc(str->sh_size + 1)) == NULL) goto out;
  if (pread(fd, names, str->sh_size, (off_t)str->sh_offset) != (ssize_t)str->sh_size) goto out;
  names[str->sh_size] = '\0';
  for (int i = 0; i < eh.e_shnum && !found; i++)
    found = sh[i].sh_name < str->sh_size && !strcmp(names + sh[i].sh_name, name);
out:
  free(names);
  free(sh);
  return found;
}

int umb_uml_kernel_check(const char *path) {
  int fd;
  int rc = umb_input_open(path, SIZE_MAX, &fd);
  if (rc) return rc;
  /* Every UML kernel has the table of its own command-line options (__uml_setup) in this section. */
  rc = access(path, X_OK) ? -EACCES : !has_section(fd, ".uml.setup.init") ? -ENOEXEC : 0;
  close(fd);
  return rc;
}
