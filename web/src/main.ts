// The hivegate browser page: reads the gateway URL, transport and page size
// from the query string (?gateway=http://127.0.0.1:8090&transport=grpcweb&limit=10)
// or the form, and pages through accounts and witnesses.
import "./style.css";
import { accountPages, isTransportKind, newDatabaseApi, newTransport, witnessPages, type TransportKind } from "./client";
import { formatAsset, formatDate, formatInteger } from "./format";
import { ListView } from "./listview";
import { Pager } from "./pager";
import type { Account } from "./gen/hive/types/v1/account_pb";
import type { Witness } from "./gen/hive/types/v1/witness_pb";
import type { ListAccountsStart } from "./gen/hive/database_api/v1/accounts_pb";
import type { ListWitnessesStart } from "./gen/hive/database_api/v1/witnesses_pb";

/** The page's settings, from the query string or the form. */
interface Settings {
  gateway: string;
  transport: TransportKind;
  limit: number;
}

const defaultLimit = 10;

/** Reads the settings from the query string; the gateway defaults to the page's own origin. */
function settingsFromQuery(q: URLSearchParams): Settings {
  const origin = location.protocol.startsWith("http") ? location.origin : "http://127.0.0.1:8090";
  const transport = q.get("transport");
  const limit = Number.parseInt(q.get("limit") ?? "", 10);
  return {
    gateway: q.get("gateway") || origin,
    transport: isTransportKind(transport) ? transport : "connect",
    limit: Number.isFinite(limit) ? limit : defaultLimit,
  };
}

function text(s: string): Node {
  return document.createTextNode(s);
}

function link(href: string): Node {
  if (!/^https?:\/\//.test(href)) return text(href);
  const a = document.createElement("a");
  a.href = href;
  a.rel = "noopener noreferrer";
  a.textContent = href;
  return a;
}

function main(): void {
  const form = document.querySelector<HTMLFormElement>("#settings")!;
  const gatewayInput = document.querySelector<HTMLInputElement>("#gateway")!;
  const transportSelect = document.querySelector<HTMLSelectElement>("#transport")!;
  const limitInput = document.querySelector<HTMLInputElement>("#limit")!;

  const accounts = new ListView<Account, ListAccountsStart>(document.querySelector("#accounts")!, (a) => [
    text(a.name),
    text(formatDate(a.created)),
    text(formatAsset(a.balance)),
  ]);
  const witnesses = new ListView<Witness, ListWitnessesStart>(document.querySelector("#witnesses")!, (w) => [
    text(w.owner),
    text(formatInteger(w.votes)),
    link(w.url),
  ]);

  const load = (s: Settings): void => {
    gatewayInput.value = s.gateway;
    transportSelect.value = s.transport;
    limitInput.value = String(s.limit);
    const api = newDatabaseApi(newTransport(s.transport, s.gateway.replace(/\/+$/, "")));
    void accounts.start(new Pager(accountPages(api), s.limit));
    void witnesses.start(new Pager(witnessPages(api), s.limit));
  };

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams({
      gateway: gatewayInput.value.trim(),
      transport: transportSelect.value,
      limit: limitInput.value,
    });
    history.replaceState(null, "", `?${q}`);
    load(settingsFromQuery(q));
  });

  load(settingsFromQuery(new URLSearchParams(location.search)));
}

main();
