#!/usr/bin/env bash
# Clean stubs in other languages, and a Python gRPC client against the demo:
#   1. Debian's stock protoc (protobuf-compiler, 3.21) generates Python, C#
#      and Java from proto/ with no error (C# needs distinct file names);
#   2. `hivegate demo` runs, and tests/polyglot/client.py, with the Python
#      stubs and Debian's python3-grpcio and python3-protobuf, makes a typed
#      bridge call, follows a paged list through next_start, reads an
#      error's hivegate.v1.JsonRpcError detail, and reads live blocks from
#      the server stream hive.stream.v1.StreamService/StreamBlocks, resuming
#      from a cursor.
# Needs go, /usr/bin/protoc and /usr/bin/python3 with grpc (.ci/run installs
# protobuf-compiler python3-grpcio python3-protobuf).
set -euo pipefail
cd "$(dirname "$0")/../.."
step() { echo; echo "=== $* ==="; }

PROTOC=${PROTOC:-/usr/bin/protoc}
PYTHON=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

step "stock protoc: $($PROTOC --version); Python, C# and Java stubs"
mkdir -p "$tmp/py" "$tmp/cs" "$tmp/java"
mapfile -t protos < <(cd proto && find . -name '*.proto' | sed 's#^\./##' | sort)
(cd proto && "$PROTOC" -I. --python_out="$tmp/py" --csharp_out="$tmp/cs" --java_out="$tmp/java" "${protos[@]}")
cs=$(find "$tmp/cs" -name '*.cs' | wc -l)
py=$(find "$tmp/py" -name '*_pb2.py' | wc -l)
java=$(find "$tmp/java" -name '*.java' | wc -l)
echo "${#protos[@]} .proto files: $py Python modules, $cs C# files, $java Java files"
if [ "$cs" -ne "${#protos[@]}" ] || [ "$py" -ne "${#protos[@]}" ] || [ "$java" -eq 0 ]; then
  echo "tests/polyglot/run.sh: expected one Python module and one C# file per .proto file" >&2
  exit 1
fi

step "build and start hivegate demo"
go build -o "$tmp/hivegate" ./cmd/hivegate
"$tmp/hivegate" demo --listen 127.0.0.1:0 >"$tmp/demo.out" 2>"$tmp/demo.err" &
pid=$!
addr=""
for _ in $(seq 1 120); do
  addr=$(sed -n 's#^ *gateway: *http://\([^ ]*\) .*#\1#p' "$tmp/demo.out" | head -1)
  if [ -n "$addr" ]; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$tmp/demo.err" >&2; exit 1; fi
  sleep 0.5
done
if [ -z "$addr" ]; then
  echo "tests/polyglot/run.sh: the demo did not start" >&2
  cat "$tmp/demo.err" >&2
  exit 1
fi
echo "demo on $addr"

step "Python gRPC client (python3-grpcio $("$PYTHON" -c 'import grpc; print(grpc.__version__)'), protobuf $("$PYTHON" -c 'import google.protobuf as p; print(p.__version__)'))"
PYTHONPATH="$tmp/py" "$PYTHON" tests/polyglot/client.py "$addr"
