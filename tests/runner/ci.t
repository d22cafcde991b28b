#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci.t: the CI templates of docs/ci/ pass yamllint, and each runs the pack's shards and merges them the way umlbed expects.
. "$(dirname "$0")/common.sh"
C=$SRC/docs/ci
command -v yamllint >/dev/null || prereq_skip_all "no yamllint (Debian package yamllint; make deps installs it)"
for f in github-actions.yml gitlab-ci.yml gitlab-mutate.yml kubernetes-job.yml; do
  yamllint -s -c "$C/.yamllint" "$C/$f" >"$T/lint" 2>&1
  check "yamllint --strict: $f" [ $? = 0 ]
  [ -s "$T/lint" ] && diag "$T/lint"
done
# What each engine needs of the template, read from the parsed YAML (yamllint's own parser, PyYAML).
py() { python3 -c "import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); $1" "$2"; }
check "GitHub: build, shard and merge jobs; the shard job's matrix has 4 shards and runs --pack with --shard" py '
j = d["jobs"]; m = j["shard"]["strategy"]["matrix"]["shard"]
run = " ".join(s.get("run", "") for s in j["shard"]["steps"])
sys.exit(not (set(j) >= {"build", "shard", "merge"} and m == [1, 2, 3, 4] and "--pack" in run and "--shard ${{ matrix.shard }}/4" in run
  and "merge" in " ".join(s.get("run", "") for s in j["merge"]["steps"]) and j["merge"]["needs"] == "shard"))' "$C/github-actions.yml"
check "GitHub: ccache keyed on the series and config hash" py '
s = d["jobs"]["build"]["steps"]; sys.exit(not any("patches/" in x.get("run", "") for x in s) or not any(x.get("uses", "").startswith("actions/cache") for x in s))' "$C/github-actions.yml"
check "GitLab: parallel shards (CI_NODE_INDEX) and a merge job publishing JUnit" py '
sys.exit(not (d["shards"]["parallel"] == 4 and "--pack" in " ".join(d["shards"]["script"])
  and d["merge"]["artifacts"]["reports"]["junit"] == "umlbed.xml"))' "$C/gitlab-ci.yml"
check "GitLab mutate: one pack, 3 parallel shards judging from it, a report job joining their results" py '
m = d["mutants"]; r = d["mutation-report"]; run = " ".join(m["script"]); rep = " ".join(r["script"])
sys.exit(not (m["parallel"] == 3 and "mutate.pl pack" in " ".join(d["mutation-pack"]["script"])
  and m["needs"] == ["mutation-pack"] and "--bundle umlbed-mutate-pack" in run
  and "--shard \"$CI_NODE_INDEX/$CI_NODE_TOTAL\"" in run
  and "mutate.pl report" in rep and "mutate-*/results.json" in rep and r["needs"] == ["mutants"]))' "$C/gitlab-mutate.yml"
check "GitLab mutate: a merge request that changes patches/ runs umlbed mutate --diff and the gate's report" py '
j = d["mutation-diff"]; run = " ".join(j["script"]); r = j["rules"][0]
sys.exit(not ("umlbed mutate --diff" in run and "mutate.pl report" in run and r["changes"] == ["patches/**/*"]
  and "merge_request_event" in r["if"]))' "$C/gitlab-mutate.yml"
check "GitHub: a pull request that changes patches/ runs umlbed mutate --diff and the gate's report" py '
j = d["jobs"]["mutation-diff"]; run = " ".join(s.get("run", "") for s in j["steps"])
sys.exit(not ("pull_request" in j["if"] and "-- patches/" in run and "umlbed mutate --diff" in run and "mutate.pl report" in run))' "$C/github-actions.yml"
check "Kubernetes: an Indexed Job with UMLBED_SHARD_TOTAL equal to its completions" py '
s = d["spec"]; c = s["template"]["spec"]["containers"][0]; env = {e["name"]: e["value"] for e in c["env"]}
sys.exit(not (d["kind"] == "Job" and s["completionMode"] == "Indexed" and int(env["UMLBED_SHARD_TOTAL"]) == s["completions"]))' "$C/kubernetes-job.yml"
echo "1..$n"
