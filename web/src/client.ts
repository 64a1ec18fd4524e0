// Typed hivegate clients for the page: a Connect or gRPC-Web transport to the
// gateway, and one FetchPage per list the page shows.
import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Account } from "./gen/hive/types/v1/account_pb";
import type { Witness } from "./gen/hive/types/v1/witness_pb";
import { DatabaseApiService } from "./gen/hive/database_api/v1/database_api_pb";
import { ListAccountsOrder, type ListAccountsStart } from "./gen/hive/database_api/v1/accounts_pb";
import { ListWitnessesOrder, type ListWitnessesStart } from "./gen/hive/database_api/v1/witnesses_pb";
import type { FetchPage } from "./pager";

/** The transports the page can use. */
export type TransportKind = "connect" | "grpcweb";

/** Every transport kind, in the order the page offers them. */
export const transportKinds: readonly TransportKind[] = ["connect", "grpcweb"];

/** Reports whether s names a transport kind. */
export function isTransportKind(s: string | null): s is TransportKind {
  return s === "connect" || s === "grpcweb";
}

/**
 * Returns a transport to the gateway at baseUrl: the Connect protocol with
 * JSON bodies, or gRPC-Web with binary Protobuf bodies.
 */
export function newTransport(kind: TransportKind, baseUrl: string): Transport {
  if (kind === "grpcweb") {
    return createGrpcWebTransport({ baseUrl });
  }
  return createConnectTransport({ baseUrl });
}

/** A typed client of hive.database_api.v1.DatabaseApiService. */
export type DatabaseApi = Client<typeof DatabaseApiService>;

/** Returns a DatabaseApiService client over transport. */
export function newDatabaseApi(transport: Transport): DatabaseApi {
  return createClient(DatabaseApiService, transport);
}

/** The time a request may take before the page reports it as failed. */
const callTimeoutMs = 15_000;

/** Pages through accounts by name with ListAccounts. */
export function accountPages(api: DatabaseApi): FetchPage<Account, ListAccountsStart> {
  return async (start, limit) => {
    const res = await api.listAccounts(
      { limit, order: ListAccountsOrder.BY_NAME, start },
      { timeoutMs: callTimeoutMs },
    );
    return { rows: res.accounts, next: res.nextStart };
  };
}

/** Pages through witnesses by name with ListWitnesses. */
export function witnessPages(api: DatabaseApi): FetchPage<Witness, ListWitnessesStart> {
  return async (start, limit) => {
    const res = await api.listWitnesses(
      { limit, order: ListWitnessesOrder.BY_NAME, start },
      { timeoutMs: callTimeoutMs },
    );
    return { rows: res.witnesses, next: res.nextStart };
  };
}
