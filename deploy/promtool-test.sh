#!/usr/bin/env bash
# Checks deploy/'s Prometheus rules and Grafana dashboard with promtool:
# the rules load, their unit tests pass (hivegate.rules.test.yml: each alert
# fires when it should, after its `for`, and not otherwise), and every
# dashboard query parses as PromQL. (gateway/dashboards_test.go checks that
# the metrics they name exist.)
#
# promtool comes from Debian's prometheus package, unpacked, not installed
# (no service is started).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

promtool=$(command -v promtool || true)
if [ -z "$promtool" ]; then
  (cd "$work" && { apt-get download prometheus >/dev/null 2>&1 || { apt-get update -qq && apt-get download prometheus >/dev/null; }; })
  dpkg-deb -x "$work"/prometheus_*.deb "$work/x"
  promtool=$work/x/usr/bin/promtool
fi
"$promtool" --version | head -1

"$promtool" check rules deploy/prometheus/hivegate.rules.yml
"$promtool" test rules deploy/prometheus/hivegate.rules.test.yml

# Every dashboard query as a recording rule, with Grafana's variables set.
python3 - "$work/dashboard.rules.json" <<'PY'
import json, sys
d = json.load(open("deploy/grafana/hivegate.json"))
rules = []
for p in d["panels"]:
    for t in p.get("targets", []):
        e = t["expr"].replace("${ns}", "hivegate").replace("$__rate_interval", "1m").replace("$instance", ".*")
        rules.append({"record": "dashboard:query%d" % len(rules), "expr": e})
json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[1], "w"))
print("dashboard: %d queries" % len(rules))
PY
"$promtool" check rules "$work/dashboard.rules.json"
