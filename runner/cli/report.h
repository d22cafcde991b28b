/* SPDX-License-Identifier: MIT */
/* report.h: text that stays valid in every report whatever bytes a scenario puts in names and diagnostics. */
#ifndef UMLBED_REPORT_H
#define UMLBED_REPORT_H

#include <stdio.h>

/*
 * A copy of s that is valid UTF-8: valid sequences are kept, and every byte that is not part of one (0xNN)
 * becomes U+00NN, so no byte is lost and the text reads as Latin-1 where it was not UTF-8. NULL for NULL;
 * malloc'd.
 */
char *umb_utf8_clean(const char *s);
/* s as XML character data or attribute text: UTF-8 cleaned, markup escaped, and the control characters that
 * XML 1.0 forbids written as the text \xNN. */
void umb_xml_escape(FILE *f, const char *s);
/* s as a TAP test name on one line: backslash \\, # \#, newline \n, CR \r, other control bytes \xNN. */
void umb_tap_escape(FILE *f, const char *s);

#endif
