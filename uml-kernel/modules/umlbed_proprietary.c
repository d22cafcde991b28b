// SPDX-License-Identifier: GPL-2.0
/*
 * umlbed test module that declares a proprietary license, like IBM's GPFS in
 * 2004: it loads only where invalidate_mmap_range() is a plain EXPORT_SYMBOL.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("umlbed: call invalidate_mmap_range() from a non-GPL module");

#include "umlbed_body.h"
