"""A Python gRPC client of hivegate's typed API, from stubs a stock protoc
generated (tests/polyglot/run.sh). It needs only Debian's python3-grpcio and
python3-protobuf: the calls go through grpc's generic unary API with the
generated message classes, so no gRPC code generator is involved.

It checks, against `hivegate demo`:
  1. a typed bridge call (BridgeApiService/GetRankedPosts) answers typed posts;
  2. a paged list (DatabaseApiService/ListAccounts) followed through
     next_start visits every account exactly once;
  3. an error (BridgeApiService/GetProfile of an unknown account) carries the
     backend's JSON-RPC error as a hivegate.v1.JsonRpcError detail;
  4. a server stream (StreamService/StreamBlocks) delivers consecutive live
     blocks, each with a cursor, and a stream started again from a cursor
     continues right after it (no gap, no duplicate).
"""

import sys

import grpc
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

from hive.bridge.v1 import bridge_api_pb2
from hive.condenser_api.v1 import condenser_state_pb2
from hive.database_api.v1 import accounts_pb2
from hive.stream.v1 import stream_pb2
from hivegate.v1 import jsonrpc_pb2


def unary(channel, method, request, response_class):
    """Calls one typed RPC over gRPC and returns (response, call)."""
    call = channel.unary_unary(
        method,
        request_serializer=request.__class__.SerializeToString,
        response_deserializer=response_class.FromString,
    )
    return call.with_call(request, timeout=30)


def status_class():
    """google.rpc.Status, built at run time (python3-protobuf does not ship
    googleapis' protos): {int32 code = 1; string message = 2;
    repeated google.protobuf.Any details = 3;}."""
    f = descriptor_pb2.FileDescriptorProto(name="polyglot/status.proto", package="google.rpc", syntax="proto3")
    f.dependency.append("google/protobuf/any.proto")
    m = f.message_type.add(name="Status")
    m.field.add(name="code", number=1, type=5, label=1)  # TYPE_INT32, LABEL_OPTIONAL
    m.field.add(name="message", number=2, type=9, label=1)  # TYPE_STRING
    m.field.add(name="details", number=3, type=11, label=3, type_name=".google.protobuf.Any")  # repeated Any
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(f)
    desc = pool.FindMessageTypeByName("google.rpc.Status")
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)  # Debian's 4.21


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def main(addr):
    channel = grpc.insecure_channel(addr)

    # 1. A typed bridge call.
    req = bridge_api_pb2.GetRankedPostsRequest(sort=bridge_api_pb2.RANKED_POSTS_SORT_CREATED, limit=5)
    resp, _ = unary(channel, "/hive.bridge.v1.BridgeApiService/GetRankedPosts", req, bridge_api_pb2.GetRankedPostsResponse)
    check(len(resp.posts) == 5, "bridge GetRankedPosts answers 5 typed posts")
    first = resp.posts[0]
    check(first.author != "" and first.created.seconds > 0, "a post has an author and a Timestamp: @%s %s" % (first.author, first.created.ToJsonString()))
    check(first.max_accepted_payout.symbol == "HBD" and first.max_accepted_payout.precision == 3,
          "assets are typed: max_accepted_payout = %d / 10^%d %s" % (first.max_accepted_payout.amount, first.max_accepted_payout.precision, first.max_accepted_payout.symbol))
    check(resp.HasField("next_start") and resp.next_start.start_author == resp.posts[-1].author, "next_start names the last post")

    # 2. A paged list followed through next_start.
    count, _ = unary(channel, "/hive.condenser_api.v1.CondenserApiService/GetAccountCount",
                     condenser_state_pb2.GetAccountCountRequest(), condenser_state_pb2.GetAccountCountResponse)
    seen = []
    req = accounts_pb2.ListAccountsRequest(limit=37, order=accounts_pb2.LIST_ACCOUNTS_ORDER_BY_NAME)
    pages = 0
    while True:
        resp, _ = unary(channel, "/hive.database_api.v1.DatabaseApiService/ListAccounts", req, accounts_pb2.ListAccountsResponse)
        names = [a.name for a in resp.accounts]
        seen.extend(names)  # no page repeats an item, whatever hived's start does
        pages += 1
        if not resp.HasField("next_start"):  # unset on the last page
            break
        req.start.CopyFrom(resp.next_start)  # sent back unchanged
    check(len(seen) == count.count and len(set(seen)) == len(seen),
          "ListAccounts through next_start: %d pages, %d accounts, each once (the node has %d)" % (pages, len(seen), count.count))

    # 3. An error and its detail.
    req = bridge_api_pb2.GetProfileRequest(account="nosuchaccount")
    try:
        unary(channel, "/hive.bridge.v1.BridgeApiService/GetProfile", req, bridge_api_pb2.GetProfileResponse)
        check(False, "GetProfile of an unknown account fails")
    except grpc.RpcError as err:
        check(err.code() == grpc.StatusCode.INVALID_ARGUMENT, "GetProfile of an unknown account: %s %s" % (err.code(), err.details()))
        bin_status = dict(err.trailing_metadata() or ()).get("grpc-status-details-bin")
        check(bin_status is not None, "the error carries grpc-status-details-bin")
        status = status_class().FromString(bin_status)
        details = [d for d in status.details if d.type_url.endswith("/hivegate.v1.JsonRpcError")]
        check(len(details) == 1, "one hivegate.v1.JsonRpcError detail")
        detail = jsonrpc_pb2.JsonRpcError.FromString(details[0].value)
        check(detail.code == -32602 and "does not exist" in detail.message,
              "the detail is the backend's JSON-RPC error: %d %s" % (detail.code, detail.message))
    # 4. A server stream of live blocks, resumed from a cursor.
    stream = channel.unary_stream(
        "/hive.stream.v1.StreamService/StreamBlocks",
        request_serializer=stream_pb2.StreamBlocksRequest.SerializeToString,
        response_deserializer=stream_pb2.StreamBlocksResponse.FromString,
    )

    def read_blocks(req, n):
        call = stream(req, timeout=60)
        got = []
        for msg in call:
            if msg.HasField("block"):
                got.append((msg.block.block_num, msg.cursor))
            if len(got) == n:
                break
        call.cancel()
        return got

    live = read_blocks(stream_pb2.StreamBlocksRequest(**{"from": stream_pb2.From(head=True)}, headers_only=True), 2)
    nums = [n for n, _ in live]
    check(len(live) == 2 and nums[1] == nums[0] + 1 and all(c for _, c in live),
          "StreamBlocks over gRPC: live blocks %s, each with a cursor" % nums)
    resumed = read_blocks(stream_pb2.StreamBlocksRequest(**{"from": stream_pb2.From(cursor=live[0][1])}, headers_only=True), 1)
    check(resumed[0][0] == nums[0] + 1, "resumed from the first block's cursor: block %d comes next" % resumed[0][0])
    print("polyglot: all checks passed")


if __name__ == "__main__":
    main(sys.argv[1])
