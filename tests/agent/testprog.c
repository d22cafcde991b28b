/* testprog.c: a small static program that the agent tests run with the exec verb. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: testprog echo ARG... | exit N | kill PID SIG | waitfile PATH | segv | big N | nfd PID\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *cmd = argv[1];
	if (strcmp(cmd, "echo") == 0) {
		/* Arguments to stdout, and a marker to stderr to show that both are captured. */
		for (int i = 2; i < argc; i++)
			printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
		fflush(stdout);
		fprintf(stderr, "stderr\n");
		return 0;
	}
	if (strcmp(cmd, "exit") == 0 && argc == 3)
		return atoi(argv[2]);
	if (strcmp(cmd, "kill") == 0 && argc == 4)
		return kill(atoi(argv[2]), atoi(argv[3])) == 0 ? 0 : 1;
	if (strcmp(cmd, "waitfile") == 0 && argc == 3) {
		/* Blocks until another process creates the file: proves that requests run concurrently. */
		struct timespec ms = {0, 1000000};
		struct stat st;
		for (int i = 0; i < 60000; i++) {
			if (stat(argv[2], &st) == 0)
				return 0;
			nanosleep(&ms, NULL);
		}
		return 1;
	}
	if (strcmp(cmd, "segv") == 0) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return 1;
	}
	if (strcmp(cmd, "big") == 0 && argc == 3) {
		long n = atol(argv[2]);
		static char buf[65536];
		memset(buf, 'x', sizeof buf);
		while (n > 0) {
			size_t k = n > (long)sizeof buf ? sizeof buf : (size_t)n;
			if (fwrite(buf, 1, k, stdout) != k)
				return 1;
			n -= (long)k;
		}
		return 0;
	}
	if (strcmp(cmd, "nfd") == 0 && argc == 3) {
		/* The number of open descriptors of a process: the agent must not leak any. */
		char path[64];
		snprintf(path, sizeof path, "/proc/%s/fd", argv[2]);
		DIR *d = opendir(path);
		if (!d)
			return 1;
		int n = 0;
		for (struct dirent *e; (e = readdir(d));)
			n += e->d_name[0] != '.';
		closedir(d);
		printf("%d\n", n);
		return 0;
	}
	return usage();
}
