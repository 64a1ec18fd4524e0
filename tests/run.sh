#!/usr/bin/env bash
# End-to-end tests of hivegate with real client software:
#   browser/explorer.test.mjs     the web/ API explorer (Connect-Web) in Debian's
#                                 Chromium, over Connect and gRPC-Web, cross-origin
#   legacy/dhive.test.mjs         @hiveio/dhive over JSON-RPC, compared with the node
#   browser/auth-page.test.mjs    the authorize page (auth/page) in Chromium, with a
#                                 stub Hive Keychain and with a typed key: no key leaves it
#   browser/demo-app.test.mjs     the demo's example app in Chromium: login without
#                                 Keychain (demo-only step), code exchanged, me, vote
#   browser/operator-page.test.mjs  the operator page (admin listener) in Chromium: route
#                                 table and nodes; a cordoned node gets no calls
#   browser/hiveauth.test.mjs     HiveAuth on the login page: the demo's simulated relay and
#                                 wallet, approved (back to the app) and rejected
#   auth/hivesigner.test.mjs      the real hivesigner SDK (v3) against hivegate demo
#   auth/app-lines.test.mjs       the app lines docs/authorization.md shows, run as written
#   hivetx/crosscheck.test.mjs    hivetx/ against hive-tx and @hiveio/dhive
# Steps: npm ci in web/, auth/page/ and tests/; check that web/src/gen matches
# the protos and web/dist and auth/page/dist match fresh builds; build
# hivegate once; run the test files with node's test runner, whose TAP
# summary (# pass N, # fail N) is the last thing printed. Needs go, node
# 20+, npm and /usr/bin/chromium (or CHROMIUM_BIN).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo; echo "=== $* ==="; }

chromium_bin=${CHROMIUM_BIN:-/usr/bin/chromium}
if [ ! -x "$chromium_bin" ]; then
  echo "tests/run.sh: no Chromium at $chromium_bin (apt-get install chromium, or set CHROMIUM_BIN)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step "npm ci (web/, auth/page/, tests/)"
(cd web && npm ci --no-audit --no-fund)
(cd auth/page && npm ci --no-audit --no-fund)
(cd tests && npm ci --no-audit --no-fund)

step "web/src/gen is what buf generate writes (buf.gen.ts.yaml)"
go tool -modfile=tools/buf/go.mod buf generate --template buf.gen.ts.yaml -o "$tmp/gen"
if ! diff -rq web/src/gen "$tmp/gen/web/src/gen"; then
  echo "web/src/gen differs from the protos: run 'make generate-ts' and commit web/src/gen and web/dist" >&2
  exit 1
fi
echo "web/src/gen is up to date"

step "web: typecheck and build; web/dist is that build"
(cd web && npx tsc --noEmit && HIVEGATE_WEB_OUT="$tmp/dist" node build.mjs)
if ! diff -rq web/dist "$tmp/dist"; then
  echo "web/dist differs from a fresh build: run 'npm run build' in web/ and commit web/dist" >&2
  exit 1
fi
echo "web/dist is up to date"

step "auth/page: auth/page/dist is a fresh build"
(cd auth/page && HIVEGATE_AUTH_PAGE_OUT="$tmp/auth-page" node build.mjs)
if ! diff -rq auth/page/dist "$tmp/auth-page"; then
  echo "auth/page/dist differs from a fresh build: run 'npm run build' in auth/page/ and commit auth/page/dist" >&2
  exit 1
fi
echo "auth/page/dist is up to date"

step "build hivegate"
go build -o "$tmp/hivegate" ./cmd/hivegate
export HIVEGATE_BIN="$tmp/hivegate" CHROMIUM_BIN="$chromium_bin"

step "end-to-end tests (node --test)"
cd tests
node --test --test-reporter=tap --test-timeout=300000 browser/ legacy/ auth/ hivetx/
