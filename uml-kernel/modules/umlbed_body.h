/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared body of the umlbed test modules: each includes this file after its
 * MODULE_LICENSE() line, so the license is the only difference between them.
 */
#ifndef UMLBED_BODY_H
#define UMLBED_BODY_H

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "File whose mappings are invalidated at load time (none: do nothing)");

static unsigned long long offset;
module_param(offset, ullong, 0444);
MODULE_PARM_DESC(offset, "Byte offset of the hole (holebegin)");

static unsigned long long length;
module_param(length, ullong, 0444);
MODULE_PARM_DESC(length, "Length of the hole in bytes (holelen)");

static unsigned int leak;
module_param(leak, uint, 0444);
MODULE_PARM_DESC(leak, "Bytes to allocate and forget at load time (a leak for a leak detector to find)");

static void *umlbed_leaked;

static int umlbed_io_ret;

/*
 * A parameter whose write fails with minus the number written, and whose
 * later reads fail with it too: a store() and a show() that return a value
 * which may be no errno, which the VFS passes on as it is.  The kernel's own
 * restart codes (512 to 4095) are refused, as the syscall path would act on
 * them, and so is a value given at load time, which load_module() would take
 * for a string.
 */
static int umlbed_io_ret_set(const char *val, const struct kernel_param *kp)
{
	int n;
	int err;

	if (THIS_MODULE->state != MODULE_STATE_LIVE)
		return -EINVAL;
	err = kstrtoint(val, 0, &n);
	if (err)
		return err;
	if (n <= 0 || (n >= ERESTARTSYS && n <= MAX_ERRNO))
		return -EINVAL;
	WRITE_ONCE(umlbed_io_ret, n);
	return -n;
}

static int umlbed_io_ret_get(char *buffer, const struct kernel_param *kp)
{
	return -READ_ONCE(umlbed_io_ret);
}

static const struct kernel_param_ops umlbed_io_ret_ops = {
	.set = umlbed_io_ret_set,
	.get = umlbed_io_ret_get,
};

module_param_cb(io_ret, &umlbed_io_ret_ops, NULL, 0600);
MODULE_PARM_DESC(io_ret, "Write N (1 to 511, or 4096 to INT_MAX): the write fails with -N, and so do later reads");

/*
 * A leak on purpose, so that a scenario shows its leak probe can see one
 * before it trusts the probe's silence.  Out of line and outside .init.text,
 * so that the detector's backtrace names it after init's text is freed.
 */
static noinline void umlbed_leak(unsigned int size)
{
	/* The contents name it: allocators report a leak's size rounded up. */
	char *p = kzalloc(size, GFP_KERNEL);

	if (p)
		strscpy(p, "umlbed_leak", size);
	WRITE_ONCE(umlbed_leaked, p);
	pr_info("leaked %u bytes on purpose\n", size);
	WRITE_ONCE(umlbed_leaked, NULL);
}

/*
 * One call of invalidate_mmap_range() at load time, so that a failed symbol
 * resolution (GPL-only export, non-GPL module) refuses the whole module.
 */
static int __init umlbed_init(void)
{
	struct file *file;

	if (leak)
		umlbed_leak(leak);
	if (!path || !*path) {
		pr_info("loaded, no path given, nothing invalidated\n");
		return 0;
	}

	file = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(file)) {
		pr_err("cannot open %s: %ld\n", path, PTR_ERR(file));
		return PTR_ERR(file);
	}

	invalidate_mmap_range(file->f_mapping, (loff_t)offset, (loff_t)length);
	pr_info("invalidate_mmap_range(%s, %llu, %llu) done\n",
		path, offset, length);

	filp_close(file, NULL);
	return 0;
}

/* Nothing to undo: the module keeps no state after init. */
static void __exit umlbed_exit(void)
{
	pr_info("unloaded\n");
}

module_init(umlbed_init);
module_exit(umlbed_exit);

MODULE_AUTHOR("umlbed");

#endif /* UMLBED_BODY_H */
