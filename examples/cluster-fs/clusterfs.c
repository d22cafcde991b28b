// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * clusterfs: the coherency hook of a (very small) cluster filesystem, as an
 * out-of-tree module built against a umlbed kernel.
 *
 * When another node of the cluster changes a byte range of a file, this node
 * must stop every process from reading its old copy: the seeds' GPFS case.
 * The "other node" is whoever writes "PATH OFFSET LENGTH" to
 * /sys/module/clusterfs/parameters/remote_write. The hook then shoots down
 * the range's user mappings with invalidate_mmap_range() and drops its clean
 * cached pages, so that the next access faults and reads the new data.
 *
 * It declares a license that is not the GPL, as GPFS did: it loads where the
 * kernel exports invalidate_mmap_range() with EXPORT_SYMBOL and is refused
 * where the export is EXPORT_SYMBOL_GPL. The source itself is GPL-2.0 OR
 * MIT, so that a team may copy it into a proprietary module or into Linux.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>

static atomic_t invalidations = ATOMIC_INIT(0);

/* Another node wrote LENGTH bytes at OFFSET of PATH. */
static int remote_write_set(const char *val, const struct kernel_param *kp)
{
	unsigned long long offset, length;
	struct file *file;
	char path[256];

	if (sscanf(val, "%255s %llu %llu", path, &offset, &length) != 3 ||
	    length == 0 || offset + length < offset)
		return -EINVAL;
	file = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);

	/* No process may keep reading its mapped copy of the old data... */
	invalidate_mmap_range(file->f_mapping, offset, length);
	/* ...nor fault the old page back in from this node's cache. */
	invalidate_mapping_pages(file->f_mapping, offset >> PAGE_SHIFT,
				 (offset + length - 1) >> PAGE_SHIFT);
	atomic_inc(&invalidations);
	pr_info("%s: %llu bytes at %llu changed on another node\n",
		path, length, offset);

	filp_close(file, NULL);
	return 0;
}

static int invalidations_get(char *buf, const struct kernel_param *kp)
{
	/* sysfs_emit() is GPL-only: a non-GPL module formats the page itself. */
	return scnprintf(buf, PAGE_SIZE, "%d\n", atomic_read(&invalidations));
}

static const struct kernel_param_ops remote_write_ops = {
	.set = remote_write_set,
};

static const struct kernel_param_ops invalidations_ops = {
	.get = invalidations_get,
};

module_param_cb(remote_write, &remote_write_ops, NULL, 0200);
MODULE_PARM_DESC(remote_write, "PATH OFFSET LENGTH: another node changed that range");
module_param_cb(invalidations, &invalidations_ops, NULL, 0444);
MODULE_PARM_DESC(invalidations, "Ranges invalidated since load");

/* The tag the kernel reads to refuse GPL-only exports: a proprietary copy's. */
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("clusterfs: keep mmaps coherent when another node writes");
MODULE_AUTHOR("umlbed example");
