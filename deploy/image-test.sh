#!/usr/bin/env bash
# Builds hivegate's container image from the Dockerfile with podman and
# tests it as haf_api_node runs Drone's: haf_api_node's own drone/config.yaml
# mounted read-only at /config.yaml, RUST_LOG=warn,access_log=info, the
# default command, port 9000.
#
# No registry is reachable from CI, so the Dockerfile's build stage (a
# golang image) cannot run: deploy/rootfs.sh, the script that stage runs,
# runs here instead and podman builds the Dockerfile's final stage (FROM
# scratch, nothing to pull) from its output (--build-context build=…).
#
# podman runs rootful with its own storage under a temporary directory
# (vfs: no overlay mounts needed), runc (Debian's crun 1.8 refuses this
# machine's hybrid cgroups) and lowered ulimits (podman's defaults exceed
# what the container runtime may set here).
#
# The containers share one network namespace: the nodes (the image's own
# `hivegate demo`, a simulated Hive node behind a gateway, on each port
# haf_api_node's config names: 7008 hived, 7002 hivemind, 7003 hafah, 7006
# hived-sync, with haproxy resolving to 127.0.0.1) and the gateway under
# test. GET / answers OK only while every backend has a node in service, so
# every backend gets a node. The simulated chain runs on wall time (a block
# every 3 s), so haf_api_node's own file, mounted unchanged, keeps its
# head-age checks on. Port 9000 is published on a free loopback port.
#
# Usage: deploy/image-test.sh   (from anywhere; needs root for apt-get and podman)
# IMAGE_ARCHIVE=path.tar also writes the image as an OCI archive.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "image-test: $*"; }
fail() { echo "image-test: FAIL: $*" >&2; exit 1; }

if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  say "installing podman and runc (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends podman runc >/dev/null
fi

work=$(mktemp -d)
P=(podman --root "$work/storage" --runroot "$work/run" --storage-driver vfs
  --runtime runc --cgroup-manager cgroupfs --events-backend file)
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ] && nofile=65536
RUN=("${P[@]}" run --ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
cleanup() {
  "${P[@]}" rm -f -t 1 gw node node7002 node7003 node7006 default >/dev/null 2>&1 || true
  "${P[@]}" rmi -af >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

say "building the file system (deploy/rootfs.sh)"
commit=$(git rev-parse HEAD 2>/dev/null || true)
deploy/rootfs.sh "$work/ctx/rootfs" "$commit"
version=$("$work/ctx/rootfs/hivegate" version --short)

say "building the image hivegate:$version (Dockerfile's final stage)"
"${P[@]}" build -q --build-context build="$work/ctx" -t "localhost/hivegate:$version" -t localhost/hivegate:latest . >/dev/null
img=localhost/hivegate:$version
size=$("${P[@]}" image inspect --format '{{.Size}}' "$img")
say "image $img: $size bytes ($((size / 1024 / 1024)) MiB)"
[ "$size" -lt $((40 * 1024 * 1024)) ] || fail "the image is over 40 MiB"
conf=$("${P[@]}" image inspect --format '{{.Config.User}} {{json .Config.Entrypoint}} {{json .Config.Cmd}}' "$img")
[ "$conf" = '65532:65532 ["/hivegate"] ["serve"]' ] || fail "user, entrypoint, cmd: $conf"
if [ -n "${IMAGE_ARCHIVE:-}" ]; then
  "${P[@]}" save --format oci-archive -o "$IMAGE_ARCHIVE" "$img"
  say "wrote $IMAGE_ARCHIVE"
fi

out=$("${RUN[@]}" --rm "$img" version)
say "$(echo "$out" | tr '\n' ' ')"
grep -qx "hivegate $version" <<<"$out" || fail "version: $out"
[ -z "$commit" ] || grep -qx "commit: $commit" <<<"$out" || fail "version does not name commit $commit: $out"

# No /config.yaml and no node URL: the default command says what to mount.
if out=$("${RUN[@]}" --rm "$img" 2>&1); then fail "started without a config: $out"; fi
grep -q 'HIVEGATE_CONFIG names /config.yaml, which does not exist' <<<"$out" || fail "without a config: $out"

say "starting the nodes (hivegate demo on 127.0.0.1:7008, 7002, 7003, 7006) and the gateway with haf_api_node's drone/config.yaml"
"${RUN[@]}" -d --name node --add-host haproxy:127.0.0.1 -p 127.0.0.1::9000 -p 127.0.0.1::8090 \
  "$img" demo --listen 127.0.0.1:7008 --admin-listen 127.0.0.1:0 >/dev/null
for p in 7002 7003 7006; do
  "${RUN[@]}" -d --name "node$p" --network container:node "$img" demo --listen "127.0.0.1:$p" --admin-listen "" >/dev/null
done
"${RUN[@]}" -d --name gw --network container:node -e RUST_LOG=warn,access_log=info \
  -v "$PWD/deploy/testdata/haf_api_node/drone/config.yaml:/config.yaml:ro" \
  "$img" >/dev/null
port=$("${P[@]}" port node 9000/tcp | sed 's/.*://')
url=http://127.0.0.1:$port

ok=
for _ in $(seq 100); do
  if body=$(curl -sf -m 2 "$url/" 2>/dev/null) && grep -q '"status":"OK"' <<<"$body"; then ok=1; break; fi
  sleep 0.1
done
[ -n "$ok" ] || { "${P[@]}" logs gw >&2 || true; fail "GET / on port 9000 did not answer OK"; }
say "GET / → $body"
grep -q '"operator_message":"Drone by Deathwing"' <<<"$body" || fail "GET / does not show drone/config.yaml's operator message"
curl -sf -m 2 "$url/health" | grep -q '"status":"OK"' || fail "GET /health"
body=$(curl -sf -m 5 "$url/" -d '{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_dynamic_global_properties","params":[]}')
grep -q '"head_block_number":' <<<"$body" || fail "get_dynamic_global_properties through haproxy:7008: $body"
say "POST / get_dynamic_global_properties → ${body:0:80}…"

logs=$("${P[@]}" logs gw 2>&1)
grep -q 'level=INFO msg=request .*method=appbase.condenser_api.get_dynamic_global_properties.*backend=hived' <<<"$logs" ||
  fail "RUST_LOG=warn,access_log=info: no access log line: $logs"
! grep -q 'msg="hivegate listening"' <<<"$logs" || fail "RUST_LOG=warn: info lines were logged"
user=$("${P[@]}" top gw user | tail -n +2 | tr -d ' ')
[ "$user" = hivegate ] || [ "$user" = 65532 ] || fail "the gateway runs as $user, not hivegate (65532)"

"${P[@]}" stop -t 5 gw >/dev/null
code=$("${P[@]}" inspect --format '{{.State.ExitCode}}' gw)
[ "$code" = 0 ] || fail "the gateway exited $code on SIGTERM"

# Without the mount, with a node URL: the embedded default (in the same
# network namespace, once gw has freed the admin listener's 127.0.0.1:9090).
"${RUN[@]}" -d --name default --network container:node -e HIVEGATE_NODE_URL=http://127.0.0.1:7008 \
  "$img" serve --listen 0.0.0.0:8090 >/dev/null
port=$("${P[@]}" port node 8090/tcp | sed 's/.*://')
ok=
for _ in $(seq 100); do
  # The body shows which config serves.
  if body=$(curl -s -m 2 "http://127.0.0.1:$port/" 2>/dev/null) && grep -q '"operator_message":"hivegate (embedded default config)"' <<<"$body"; then ok=1; break; fi
  sleep 0.1
done
[ -n "$ok" ] || { "${P[@]}" logs default >&2 || true; fail "the embedded default did not answer"; }
grep -q 'config="(embedded default)"' <<<"$("${P[@]}" logs default 2>&1)" || fail "the embedded default's start-up log does not name it"

say "ok: the image serves /config.yaml on port 9000 as non-root, stops cleanly on SIGTERM, and serves the embedded default without /config.yaml"
