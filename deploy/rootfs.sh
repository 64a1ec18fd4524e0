#!/bin/sh
# Writes the container image's whole file system to DIR: the static hivegate
# binary, the CA certificates, and the passwd and group entries of the
# non-root user it runs as (hivegate, 65532:65532), plus an empty /tmp
# (os.TempDir; the demo writes its key file there).
#
# The Dockerfile's build stage runs it; deploy/image-test.sh runs it on the
# build machine and hands DIR to the Dockerfile's final stage in place of the
# build stage (podman build --build-context build=…), so both images are
# made by the same commands.
#
# Usage: deploy/rootfs.sh DIR [COMMIT]   (from the repository's root)
set -eu
out=${1:?usage: deploy/rootfs.sh DIR [COMMIT]}
commit=${2:-}
certs=${CA_CERTIFICATES:-/etc/ssl/certs/ca-certificates.crt}

mkdir -p "$out/etc/ssl/certs" "$out/tmp"
chmod 1777 "$out/tmp"
# Static (no cgo: no libc in the image), no file system paths in the binary,
# no symbol table; the commit is what `hivegate version` prints.
CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -ldflags "-s -w -X main.buildCommit=$commit" \
  -o "$out/hivegate" ./cmd/hivegate
cp "$certs" "$out/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/:/sbin/nologin\nhivegate:x:65532:65532:hivegate:/:/sbin/nologin\n' >"$out/etc/passwd"
printf 'root:x:0:\nhivegate:x:65532:\n' >"$out/etc/group"
