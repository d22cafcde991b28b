// SPDX-License-Identifier: GPL-2.0
/*
 * umlbed_hostile.c: a guest kernel module that tries to reach the host from guest
 * kernel context.
 *
 * A UML kernel is a host process, so a module loaded into it can make host system
 * calls: these are raw syscall instructions, past anything the guest kernel checks.
 * Each action's return value (a negative errno when the host refused it) is listed
 * in the read-only parameter "results", one "NAME VALUE" line each, for
 * kmod-walls.t to compare with what the walls promise.
 *
 * out=DIR is a host folder outside the run folder that the test watches, victim=PID
 * a host process of the test's, sock=PATH a unix socket the test listens on,
 * kernel=PATH the kernel's own binary, and inside=PATH a file the module may write
 * (the control: it shows that the module's host calls work at all), tried as
 * inside_alt=PATH too (the same file as a walled kernel names it).
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static char *out = "/nonexistent";
module_param(out, charp, 0444);
static int victim;
module_param(victim, int, 0444);
static char *sock = "/nonexistent";
module_param(sock, charp, 0444);
static char *kernel = "/nonexistent";
module_param(kernel, charp, 0444);
static char *inside = "/nonexistent";
module_param(inside, charp, 0444);
static char *inside_alt = "/nonexistent";
module_param(inside_alt, charp, 0444);
static char *meta = "/nonexistent";
module_param(meta, charp, 0444);
static int peer;
module_param(peer, int, 0444);
static char *pts = "/nonexistent";
module_param(pts, charp, 0444);
static char *squat = "umlbed-squat";
module_param(squat, charp, 0444);
static char *umldir = "/nonexistent";
module_param(umldir, charp, 0444);

static char results[4000];
module_param_string(results, results, sizeof(results), 0444);

/* Host system call numbers and flags (x86_64): the guest's headers describe the guest. */
enum {
	H_READ = 0, H_WRITE = 1, H_OPEN = 2, H_CLOSE = 3, H_SOCKET = 41,
	H_CONNECT = 42, H_VFORK = 58,
	H_EXECVE = 59, H_EXIT = 60, H_WAIT4 = 61, H_KILL = 62, H_SHMGET = 29,
	H_SHMCTL = 31, H_TRUNCATE = 76,
	H_GETDENTS64 = 217, H_RENAME = 82, H_MKDIR = 83, H_UNLINK = 87,
	H_SYMLINK = 88, H_CHMOD = 90,
	H_PTRACE = 101, H_SETUID = 105, H_GETPPID = 110, H_MOUNT = 165, H_UNSHARE = 272,
	H_PROCESS_VM_READV = 310, H_BPF = 321, H_IO_URING_SETUP = 425, H_SETSID = 112,
	H_BIND = 49, H_SETPRIORITY = 141, H_SETXATTR = 188, H_SCHED_SETAFFINITY = 203,
	H_IOPRIO_SET = 251, H_UTIMENSAT = 280, H_PRLIMIT64 = 302,
};

#define HO_RDONLY 0
#define HO_WRONLY 1
#define HO_RDWR 2
#define HO_CREAT 0100
#define HO_APPEND 02000
#define HO_DIRECTORY 0200000

static long hcall(long nr, long a, long b, long c, long d, long e)
{
	register long r10 asm("r10") = d;
	register long r8 asm("r8") = e;
	register long r9 asm("r9") = 0;
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
		     : "rcx", "r11", "memory");
	return ret;
}

static void note(const char *name, long rc)
{
	size_t len = strlen(results);

	snprintf(results + len, sizeof(results) - len, "%s %ld\n", name, rc);
}

static char path[512];

static const char *at(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* Opens name (mode 0644 if created), writes text if any, closes: 0 or the failure. */
static long put(const char *name, long flags, const char *text)
{
	long fd = hcall(H_OPEN, (long)name, flags, 0644, 0, 0);
	long rc = fd;

	if (fd < 0)
		return fd;
	if (text)
		rc = hcall(H_WRITE, fd, (long)text, strlen(text), 0, 0);
	hcall(H_CLOSE, fd, 0, 0, 0, 0);
	return rc < 0 ? rc : 0;
}

static long get(const char *name)
{
	char buf[64];
	long fd = hcall(H_OPEN, (long)name, HO_RDONLY, 0, 0, 0);
	long rc;

	if (fd < 0)
		return fd;
	rc = hcall(H_READ, fd, (long)buf, sizeof(buf), 0, 0);
	hcall(H_CLOSE, fd, 0, 0, 0, 0);
	return rc;
}

/* vfork, then execve of /bin/sh writing a file outside; the child exits with errno. */
static long run_shell(void)
{
	static char cmd[600];
	static const char *argv[4];
	static const char *envp[1];
	long pid, rc;
	int status = 0;

	snprintf(cmd, sizeof(cmd), "echo shell > %s/exec", out);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	envp[0] = NULL;
	/* The child shares this stack until it execs: it runs only the two calls below. */
	asm volatile("mov $58, %%eax\n\t"
		     "syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov $59, %%eax\n\t"
		     "syscall\n\t"
		     "mov %%rax, %%rdi\n\t"
		     "neg %%rdi\n\t"
		     "mov $60, %%eax\n\t"
		     "syscall\n\t"
		     "1:\n\t"
		     : "=a"(pid)
		     : "D"("/bin/sh"), "S"(argv), "d"(envp)
		     : "rcx", "r11", "memory");
	if (pid < 0)
		return pid;
	rc = hcall(H_WAIT4, pid, (long)&status, 0, 0, 0);
	if (rc < 0)
		return rc;
	/* An exit status of N from the child is execve's -N; 0 is a shell that ran. */
	return (status & 0x7f) ? -1000 : -((status >> 8) & 0xff);
}

static long unix_connect(void)
{
	struct {
		unsigned short family;
		char path[108];
	} sa = { 1, "" };
	long fd = hcall(H_SOCKET, 1, 1, 0, 0, 0);
	long rc;

	if (fd < 0)
		return fd;
	strscpy(sa.path, sock, sizeof(sa.path));
	rc = hcall(H_CONNECT, fd, (long)&sa, sizeof(sa), 0, 0);
	hcall(H_CLOSE, fd, 0, 0, 0, 0);
	return rc;
}

static long list_root(void)
{
	char buf[512];
	long fd = hcall(H_OPEN, (long)"/", HO_RDONLY | HO_DIRECTORY, 0, 0, 0);
	long rc;

	if (fd < 0)
		return fd;
	rc = hcall(H_GETDENTS64, fd, (long)buf, sizeof(buf), 0, 0);
	hcall(H_CLOSE, fd, 0, 0, 0, 0);
	return rc;
}

static long peek_victim(void)
{
	long word = 0;
	struct hiov {
		void *base;
		unsigned long len;
	} local = { &word, sizeof(word) }, remote = { (void *)0x400000, 8 };

	return hcall(H_PROCESS_VM_READV, victim, (long)&local, 1, (long)&remote, 1);
}

static long shm(void)
{
	long id = hcall(H_SHMGET, 0, 4096, 01000 | 0600, 0, 0);

	if (id >= 0)
		hcall(H_SHMCTL, id, 0 /* IPC_RMID */, 0, 0, 0);
	return id;
}

/* Binds the abstract unix socket name squat and keeps it: squatting it. */
static long bind_abstract(void)
{
	struct {
		unsigned short family;
		char path[108];
	} sa = { 1, "" };
	long fd = hcall(H_SOCKET, 1, 1, 0, 0, 0);
	long len = strlen(squat);

	if (fd < 0)
		return fd;
	if (len > 100)
		len = 100;
	memcpy(sa.path + 1, squat, len);
	return hcall(H_BIND, fd, (long)&sa, 2 + 1 + len, 0, 0);
}

/* Writes peer's pid into umldir/UMID/pid, UMID being the folder's one entry. */
static long write_pidfile(void)
{
	static char dents[1024], file[512];
	long fd = hcall(H_OPEN, (long)umldir, HO_RDONLY | HO_DIRECTORY, 0, 0, 0);
	long n, off;
	char num[16];

	if (fd < 0)
		return fd;
	n = hcall(H_GETDENTS64, fd, (long)dents, sizeof(dents), 0, 0);
	hcall(H_CLOSE, fd, 0, 0, 0, 0);
	/* struct linux_dirent64: inode, offset, record length, type, name. */
	for (off = 0; n > 0 && off < n; off += *(unsigned short *)(dents + off + 16)) {
		const char *name = dents + off + 19;

		if (name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s/pid", umldir, name);
		snprintf(num, sizeof(num), "%d\n", peer);
		return put(file, HO_WRONLY | HO_CREAT | 01000 /* O_TRUNC */, num);
	}
	return n < 0 ? n : -2 /* ENOENT */;
}

/* The calls on what shares the kernel's host uid but no Landlock rule covers. */
static void same_uid(void)
{
	static const long times[4] = { 0, 0, 0, 0 };
	static const unsigned long cpu0 = 1;
	static const unsigned long cpu_limit[2] = { 1, 1 };
	long rc;

	note("chmod-same-uid-file", hcall(H_CHMOD, (long)meta, 0777, 0, 0, 0));
	note("utimensat-same-uid-file",
	     hcall(H_UTIMENSAT, -100 /* AT_FDCWD */, (long)meta, (long)times, 0, 0));
	note("setxattr-same-uid-file",
	     hcall(H_SETXATTR, (long)meta, (long)"user.umlbed", (long)"x", 1, 0));
	note("prlimit-same-uid-process",
	     hcall(H_PRLIMIT64, peer, 0 /* RLIMIT_CPU */, (long)cpu_limit, 0, 0));
	note("setpriority-same-uid-process",
	     hcall(H_SETPRIORITY, 0 /* PRIO_PROCESS */, peer, 19, 0, 0));
	note("ioprio-same-uid-process",
	     hcall(H_IOPRIO_SET, 1 /* IOPRIO_WHO_PROCESS */, peer, (3 << 13) | 7, 0, 0));
	note("affinity-same-uid-process",
	     hcall(H_SCHED_SETAFFINITY, peer, sizeof(cpu0), (long)&cpu0, 0, 0));
	rc = hcall(H_OPEN, (long)pts, HO_RDWR, 0, 0, 0);
	if (rc >= 0) {
		hcall(H_WRITE, rc, (long)"written by a guest module\n", 26, 0, 0);
		hcall(H_CLOSE, rc, 0, 0, 0, 0);
	}
	/* The run's own devpts may hold a terminal of that name: the test looks at the host's. */
	note("contained-open-terminal", rc);
	note("bind-abstract", bind_abstract());
	/* UML's pid file is the kernel's own to write; no kill may follow it. */
	note("contained-pid-file", write_pidfile());
}

static int __init hostile_init(void)
{
	static char buf[256];
	long ppid = hcall(H_GETPPID, 0, 0, 0, 0, 0);
	long rc;

	rc = put(inside, HO_WRONLY | HO_CREAT, "inside\n");
	if (rc < 0)
		rc = put(inside_alt, HO_WRONLY | HO_CREAT, "inside\n");
	note("control-inside", rc);
	note("read-etc-hostname", get("/etc/hostname"));
	note("read-etc-passwd", get("/etc/passwd"));
	note("read-victim", get(at(out, "victim")));
	note("create-outside", put(at(out, "created"), HO_WRONLY | HO_CREAT, "created\n"));
	note("append-victim", put(at(out, "victim"), HO_WRONLY | HO_APPEND, "appended\n"));
	note("truncate-victim", hcall(H_TRUNCATE, (long)at(out, "victim"), 0, 0, 0, 0));
	note("chmod-victim", hcall(H_CHMOD, (long)at(out, "victim"), 0777, 0, 0, 0));
	snprintf(buf, sizeof(buf), "%s/renamed", out);
	note("rename-victim", hcall(H_RENAME, (long)at(out, "victim"), (long)buf, 0, 0, 0));
	note("unlink-victim", hcall(H_UNLINK, (long)at(out, "victim"), 0, 0, 0, 0));
	note("mkdir-outside", hcall(H_MKDIR, (long)at(out, "dir"), 0755, 0, 0, 0));
	note("symlink-outside", hcall(H_SYMLINK, (long)"/etc", (long)at(out, "link"), 0, 0, 0));
	/* A walled kernel has its own /dev/shm: this may work; the test looks at the host's. */
	note("contained-dev-shm", put("/dev/shm/umlbed-hostile", HO_WRONLY | HO_CREAT, "shm\n"));
	note("open-kernel-binary-for-write", put(kernel, HO_WRONLY, NULL));
	note("list-host-root", list_root());
	snprintf(buf, sizeof(buf), "/proc/%ld/fd/1", ppid);
	note("open-parent-stdout", put(buf, HO_WRONLY, NULL));
	snprintf(buf, sizeof(buf), "/proc/%d/mem", victim);
	note("open-victim-mem", put(buf, HO_RDWR, NULL));
	note("exec-host-shell", run_shell());
	note("socket-inet", hcall(H_SOCKET, 2, 1, 0, 0, 0));
	note("connect-host-unix-socket", unix_connect());
	note("process-vm-readv-victim", peek_victim());
	rc = hcall(H_PTRACE, 16 /* PTRACE_ATTACH */, victim, 0, 0, 0);
	if (rc == 0)
		hcall(H_PTRACE, 17 /* PTRACE_DETACH */, victim, 0, 0, 0);
	note("ptrace-victim", rc);
	note("kill-victim", hcall(H_KILL, victim, 9, 0, 0, 0));
	note("shmget", shm());
	rc = hcall(H_MOUNT, (long)"none", (long)at(out, "dir"), (long)"tmpfs", 0, 0);
	note("mount-tmpfs", rc);
	note("unshare-user", hcall(H_UNSHARE, 0x10000000, 0, 0, 0, 0));
	note("setsid", hcall(H_SETSID, 0, 0, 0, 0, 0));
	note("io-uring-setup", hcall(H_IO_URING_SETUP, 1, (long)buf, 0, 0, 0));
	note("bpf", hcall(H_BPF, 0, (long)buf, 0, 0, 0));
	same_uid();
	/* Last: on a host that lets it through, the module's user is root from here on. */
	note("setuid-root", hcall(H_SETUID, 0, 0, 0, 0, 0));
	return 0;
}

static void __exit hostile_exit(void)
{
}

module_init(hostile_init);
module_exit(hostile_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("umlbed: host system calls from guest kernel context, for the walls' test");
