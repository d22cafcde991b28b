/* SPDX-License-Identifier: MIT */
/* runcov.h: inside the core, shared by run.c and runcov.c: a run's --coverage folder, made and then accounted. */
#ifndef UMLBED_RUNCOV_H
#define UMLBED_RUNCOV_H

#include "run.h"

/* Makes r->covdir when the run configuration asks for coverage (else nothing): 0 or a negative errno. */
int umb_run_cov_dir(umb_run *r);
/* Once the run's instances are gone: counts those that wrote gcov data into the result, and notes the others. */
void umb_run_cov_account(umb_run *r);

#endif
