// Package transcode converts between hived's JSON and protobuf messages.
//
// It is the one generic, descriptor-driven codec behind hivegate's typed
// (Connect/gRPC) APIs: a typed request is encoded into the JSON-RPC params
// hived expects, and hived's JSON result is decoded into the typed response.
// Nothing is written per method; everything is derived from the message
// descriptors and the options declared in proto/hivegate/v1/options.proto:
//
//   - (hivegate.v1.json_shape): how a message is laid out. Unset means a JSON
//     object keyed by field name; TUPLE means a JSON array whose elements are
//     the fields in field-number order (hived's std::pair / std::tuple);
//     BARE means the JSON value of the message's single field, or of the set
//     case of its single oneof, written in place of the message; in a list,
//     JSON null is an empty BARE element (hived's vector<optional<T>>).
//     LEGACY_ASSET means a legacy asset string "1.000 HIVE" read into
//     {amount, precision, symbol} and written back exactly.
//   - (hivegate.v1.json_key): the JSON key of a field when it differs from
//     the field's name.
//   - (hivegate.v1.time_separator): the character between date and time of a
//     Timestamp field when it is not 'T' (hivemind's " "); reading accepts
//     either.
//   - (hivegate.v1.hived_name): the name hived writes for an enum value when it
//     is not the value's name without the enum's UPPER_SNAKE prefix, lowercased.
//   - (hivegate.v1.jsonrpc_method): the JSON-RPC method an RPC is translated
//     to; see Registry.
//
// Scalars follow hived's encodings: google.protobuf.Timestamp is
// "YYYY-MM-DDTHH:MM:SS" in UTC with no zone; 64-bit integers are JSON numbers
// when |v| <= 2^53-1 and strings otherwise (hived >= 1.27.5), and are read
// from either; enums are hived names; google.protobuf.Value, Struct and
// ListValue carry arbitrary JSON.
//
// A field named next_start in a message whose name ends in "Response" is not
// part of hived's JSON: the gateway computes it. Both directions skip it.
//
// Options are read from descriptors by field number, so descriptors built at
// run time (protodesc, dynamicpb) work whether or not the generated option
// extension types are linked into the binary.
package transcode
