// SPDX-License-Identifier: GPL-2.0
/*
 * umlbed test module with a GPL license: may use GPL-only exports, so it
 * loads whether invalidate_mmap_range() is exported GPL-only or not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("umlbed: call invalidate_mmap_range() from a GPL module");

#include "umlbed_body.h"
