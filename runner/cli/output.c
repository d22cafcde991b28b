// SPDX-License-Identifier: MIT
/* output.c: the CLI's reports of a set of runs: TAP lines with their diagnostics, JUnit XML and JSON. */
#include "output.h"
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void print_diag(FILE *f, const char *indent, const char *prefix, const char *text) {
  if (text == NULL) return;
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    fprintf(f, "%s%s%.*s\n", indent, prefix, len, p);
    p += len + (nl ? 1 : 0);
  }
}

void umb_out_tap(FILE *f, const job *j, int n) { umb_out_tap_indent(f, j, n, ""); }

void umb_out_tap_indent(FILE *f, const job *j, int n, const char *indent) {
  int ok = j->verdict == UMB_OK || j->verdict == UMB_SKIP;
  fprintf(f, "%s%s %d - ", indent, ok ? "ok" : "not ok", n);
  umb_tap_escape(f, j->name);
  if (j->verdict == UMB_SKIP) {
    /* The reason is t:skip's text, never a note before it; TAP wants it on one line. */
    const char *d = j->reason ? j->reason : "";
    char *reason = strndup(d, strcspn(d, "\n"));
    fprintf(f, " # SKIP ");
    umb_tap_escape(f, reason ? reason : "");
    free(reason);
  } else if (!ok) {
    fprintf(f, " # %s", umb_verdict_name(j->verdict));
  }
  fprintf(f, "\n");
  /* What the scenario print()ed: diagnostics, never TAP. */
  print_diag(f, indent, "# print: ", j->prints);
  if (!ok) {
    fprintf(f, "%s# %s: %s (%.2f s)\n", indent, j->file, umb_verdict_name(j->verdict), j->seconds);
    print_diag(f, indent, "#   ", j->diag);
  } else if (j->verdict == UMB_OK) {
    /* A passing run's diagnostics are its t:note lines: what the scenario measured is worth seeing. */
    print_diag(f, indent, "#   ", j->diag);
  }
  if (j->dir) fprintf(f, "%s# run folder kept: %s\n", indent, j->dir);
  fflush(f);
}

int umb_out_junit(const char *path, const job *jobs, int njobs, const umb_config *cfg) {
  FILE *f = fopen(path, "w");
  if (f == NULL) return -errno;
  int fails = 0, errors = 0, skipped = 0;
  double total = 0;
  for (int i = 0; i < njobs; i++) {
    const job *j = &jobs[i];
    total += j->seconds;
    if (!j->done || j->verdict == UMB_ERROR)
      errors++;
    else if (j->verdict == UMB_SKIP)
      skipped++;
    else if (j->verdict != UMB_OK)
      fails++;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
  fprintf(f, "<testsuite name=\"umlbed\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
          njobs, fails, errors, skipped, total);
  /* Which kernel the verdicts are about. */
  fprintf(f, "  <properties>\n");
  const char *props[][2] = {
      {"kernel", cfg->kernel}, {"release", cfg->release}, {"generation", cfg->generation}, {"variant", cfg->variant}};
  for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
    if (props[i][1] == NULL) continue;
    fprintf(f, "    <property name=\"%s\" value=\"", props[i][0]);
    umb_xml_escape(f, props[i][1]);
    fprintf(f, "\"/>\n");
  }
  fprintf(f, "  </properties>\n");
  for (int i = 0; i < njobs; i++) {
    const job *j = &jobs[i];
    fprintf(f, "  <testcase classname=\"");
    umb_xml_escape(f, j->file);
    fprintf(f, "\" name=\"");
    umb_xml_escape(f, j->name);
    fprintf(f, "\" time=\"%.3f\">", j->seconds);
    if (!j->done) {
      fprintf(f, "<error message=\"not run\"/>");
    } else if (j->verdict == UMB_SKIP) {
      /* The reason as the message, every diagnostic line (notes too) as the text. */
      fprintf(f, "<skipped message=\"");
      umb_xml_escape(f, j->reason ? j->reason : "");
      fprintf(f, "\">");
      umb_xml_escape(f, j->diag ? j->diag : "");
      fprintf(f, "</skipped>");
    } else if (j->verdict != UMB_OK) {
      const char *tag = j->verdict == UMB_ERROR ? "error" : "failure";
      fprintf(f, "\n    <%s message=\"%s\" type=\"%s\">", tag, umb_verdict_name(j->verdict),
              umb_verdict_name(j->verdict));
      umb_xml_escape(f, j->diag);
      if (j->dir) {
        fprintf(f, "\nrun folder kept: ");
        umb_xml_escape(f, j->dir);
      }
      fprintf(f, "</%s>\n  ", tag);
    }
    fprintf(f, "</testcase>\n");
  }
  fprintf(f, "</testsuite>\n</testsuites>\n");
  return fclose(f) ? -errno : 0;
}

/* A JSON string of any bytes (invalid UTF-8 as U+00NN, see report.h), or null. */
static json_t *json_clean(const char *s) {
  char *c = umb_utf8_clean(s);
  json_t *v = c ? json_string(c) : json_null();
  free(c);
  return v ? v : json_null();
}

/* The samples of one run as JSON: [{"name", "value", "unit", "labels": {KEY: string or number}}]. */
static json_t *metrics_json(const char *text) {
  json_t *arr = json_array();
  for (const char *p = text; *p;) {
    size_t len = strcspn(p, "\n");
    char *line = strndup(p, len);
    p += len + (p[len] == '\n');
    if (line == NULL) break;
    json_t *m = json_object(), *labels = json_object();
    int field = 0;
    /* strsep, not strtok: an empty unit is an empty field, not a missing one. */
    char *rest = line;
    for (char *f; (f = strsep(&rest, "\t")) != NULL; field++) {
      if (field == 0) {
        json_object_set_new(m, "name", json_clean(f));
      } else if (field == 1) {
        json_object_set_new(m, "value", json_real(strtod(f, NULL)));
      } else if (field == 2) {
        json_object_set_new(m, "unit", json_clean(f));
      } else {
        size_t k = strcspn(f, "=#");
        if (!f[k]) continue;
        char sep = f[k];
        f[k] = '\0';
        const char *v = f + k + 1;
        json_t *jv;
        if (sep != '#')
          jv = json_clean(v);
        else if (strpbrk(v, ".eEin"))
          jv = json_real(strtod(v, NULL));
        else
          jv = json_integer(strtoll(v, NULL, 10));
        json_object_set_new(labels, f, jv);
      }
    }
    json_object_set_new(m, "labels", labels);
    json_array_append_new(arr, m);
    free(line);
  }
  return arr;
}

int umb_out_json(const char *path, const job *jobs, int njobs, const umb_config *cfg, const umb_jobs *ctl,
                 const umb_out_shard *shard) {
  json_t *root = json_object(), *arr = json_array();
  int counts[UMB_ERROR + 1] = {0};
  for (int i = 0; i < njobs; i++) {
    const job *j = &jobs[i];
    json_t *o = json_object(), *boots = json_array();
    for (int b = 0; b < j->nboot; b++) json_array_append_new(boots, json_real(j->boot_ms[b]));
    json_object_set_new(o, "name", json_clean(j->name));
    json_object_set_new(o, "file", json_clean(j->file));
    json_object_set_new(o, "verdict", json_string(j->done ? umb_verdict_name(j->verdict) : "NOT RUN"));
    json_object_set_new(o, "seconds", json_real(j->seconds));
    json_object_set_new(o, "boot_ms", boots);
    json_object_set_new(o, "diag", json_clean(j->diag));
    json_object_set_new(o, "print", json_clean(j->prints));
    json_object_set_new(o, "kept", json_clean(j->dir));
    if (j->metrics) json_object_set_new(o, "metrics", metrics_json(j->metrics));
    if (j->coverage) {
      json_t *c = json_object();
      json_object_set_new(c, "folder", json_clean(j->coverage));
      json_object_set_new(c, "written", json_integer(j->cov_written));
      json_object_set_new(c, "lost", json_integer(j->cov_lost));
      json_object_set_new(o, "coverage", c);
    }
    json_array_append_new(arr, o);
    if (j->done) counts[j->verdict]++;
  }
  json_object_set_new(root, "kernel", json_clean(cfg->kernel));
  json_object_set_new(root, "variant", json_clean(cfg->variant));
  json_object_set_new(root, "release", json_clean(cfg->release));
  json_object_set_new(root, "generation", json_clean(cfg->generation));
  json_object_set_new(root, "jobs", json_integer(ctl->cap));
  json_object_set_new(root, "jobs_auto", json_boolean(ctl->automatic));
  json_t *levels = json_object();
  for (int l = 1; l <= ctl->cap; l++) {
    if (!ctl->runs[l]) continue;
    char key[16];
    snprintf(key, sizeof key, "%d", l);
    json_object_set_new(levels, key, json_integer(ctl->runs[l]));
  }
  json_object_set_new(root, "runs_per_level", levels);
  /* With it, a reader of the report alone can tell whether every run planned was reported (suite.t does). */
  json_object_set_new(root, "planned", json_integer(njobs));
  if (shard && shard->pack) json_object_set_new(root, "pack", json_clean(shard->pack));
  if (shard && shard->n) {
    json_t *sh = json_object(), *all = json_array();
    json_object_set_new(sh, "k", json_integer(shard->k));
    json_object_set_new(sh, "n", json_integer(shard->n));
    json_object_set_new(sh, "source", json_clean(shard->source));
    json_object_set_new(sh, "balance", json_clean(shard->balance));
    json_object_set_new(root, "shard", sh);
    for (int i = 0; i < shard->nall; i++) json_array_append_new(all, json_clean(shard->all[i]));
    json_object_set_new(root, "all_runs", all);
  }
  json_object_set_new(root, "results", arr);
  json_t *sum = json_object();
  for (int v = 0; v <= UMB_ERROR; v++)
    json_object_set_new(sum, umb_verdict_name((umb_verdict)v), json_integer(counts[v]));
  json_object_set_new(root, "summary", sum);
  int rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_ENSURE_ASCII);
  json_decref(root);
  return rc ? -EIO : 0;
}
