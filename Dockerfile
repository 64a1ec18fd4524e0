# hivegate's container image: the static binary, CA certificates and a
# non-root user on an empty base (scratch). deploy/README.md shows how to
# build it (docker build or podman build) and run it; deploy/image-test.sh
# builds it and tests it in CI.
#
# Its default command serves /config.yaml when that file exists (where
# haf_api_node and Drone's image mount the config), otherwise the embedded
# default with HIVEGATE_NODE_URL as the node. It reads RUST_LOG as Drone
# does (warn,access_log=info).

# The Go release go.mod names (its toolchain line).
ARG GO_IMAGE=golang:1.26.11-bookworm

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The commit `hivegate version` reports: --build-arg COMMIT=$(git rev-parse HEAD).
ARG COMMIT=""
RUN sh deploy/rootfs.sh /rootfs "$COMMIT"

FROM scratch
COPY --from=build /rootfs/ /
USER 65532:65532
ENV HIVEGATE_CONFIG=/config.yaml
# Drone's port in haf_api_node's drone/config.yaml; the embedded default's
# is 8090 (the image's default command with no /config.yaml).
EXPOSE 9000
ENTRYPOINT ["/hivegate"]
CMD ["serve"]
