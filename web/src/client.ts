// The transports the page calls the gateway with: Connect (JSON bodies) or
// gRPC-Web (binary Protobuf bodies).
import type { Registry } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

/** The transports the page can use. */
export type TransportKind = "connect" | "grpcweb";

/** Reports whether s names a transport kind. */
export function isTransportKind(s: string | null): s is TransportKind {
  return s === "connect" || s === "grpcweb";
}

/**
 * Returns a transport to the gateway at baseUrl. registry resolves
 * google.protobuf.Any in JSON.
 */
export function newTransport(kind: TransportKind, baseUrl: string, registry: Registry): Transport {
  const jsonOptions = { registry };
  if (kind === "grpcweb") {
    return createGrpcWebTransport({ baseUrl, jsonOptions });
  }
  return createConnectTransport({ baseUrl, jsonOptions });
}
