// Turns a failed call into what the page shows: the Connect error code, the
// message, and the JSON-RPC error hivegate attaches as a detail when the
// backend node answered with one.
import { Code, ConnectError } from "@connectrpc/connect";
import { JsonRpcErrorSchema } from "./gen/hivegate/v1/jsonrpc_pb";

/** What the page shows for one failed call. */
export interface ShownError {
  /** The Connect code in its wire spelling, for example "invalid_argument". */
  code: string;
  /** The error message without the code prefix. */
  message: string;
  /** The backend's JSON-RPC error, "code: message", when hivegate attached one. */
  jsonRpc?: string;
  /** A hint for errors that never reached the gateway. */
  hint?: string;
}

/** Returns the wire spelling of a Connect code: Code.InvalidArgument is "invalid_argument". */
export function codeName(code: Code): string {
  return (Code[code] ?? "unknown").replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Describes err, which may be any thrown value. */
export function describeError(err: unknown): ShownError {
  const ce = ConnectError.from(err);
  const shown: ShownError = { code: codeName(ce.code), message: ce.rawMessage };
  const [detail] = ce.findDetails(JsonRpcErrorSchema);
  if (detail) {
    shown.jsonRpc = `${detail.code}: ${detail.message}`;
  }
  if (ce.code === Code.Unknown && ce.cause instanceof TypeError) {
    // fetch rejects with a bare TypeError ("Failed to fetch") and, by design,
    // does not say why.
    shown.hint = "The gateway could not be reached: it is not running at that URL, or it does not allow this page's origin (CORS).";
  }
  return shown;
}
