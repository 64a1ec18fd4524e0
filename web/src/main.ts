// hivegate's API explorer: every service and RPC of the typed API, found in
// the bundled descriptors; a form for the chosen RPC's request; a call over
// Connect or gRPC-Web; the answer as a table (JSON on demand); and "Next
// page", which feeds the response's cursor back into the request.
//
// URL: ?gateway=http://127.0.0.1:8090&transport=grpcweb holds the settings
// (the gateway defaults to the page's own origin), and the hash the RPC and
// its request: #hive.database_api.v1.DatabaseApiService/ListAccounts?{"limit":5}.
import "./style.css";
import { fromJson, toJson, type DescMethod, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { isTransportKind, newTransport, type TransportKind } from "./client";
import { describeError } from "./errors";
import { findMethod, jsonRpcMethod, loadCatalog, methodPath } from "./explorer/catalog";
import { canonical, describePaging, nextPage, pagingOf, type Paging } from "./explorer/cursor";
import { messageForm, type Editor } from "./explorer/form";
import { rowsOf, tableOf } from "./explorer/result";
import { renderCatalog } from "./explorer/sidebar";

/** The time a call may take before the page reports it as failed. */
const callTimeoutMs = 30_000;

/** The states of the result, as written to #result's data-state. */
type ResultState = "idle" | "loading" | "ready" | "end" | "stuck" | "error";

function $<T extends HTMLElement>(sel: string): T {
  const el = document.querySelector<T>(sel);
  if (!el) throw new Error(`page markup has no ${sel}`);
  return el;
}

/** The RPC shown and where its paging stands. */
interface Current {
  method: DescMethod;
  paging: Paging | undefined;
  form: Editor;
  /** The page number of the result shown; 0 before the first call. */
  page: number;
  /** The list rows shown on earlier pages, to number rows across pages. */
  rowsBefore: number;
  /** The request of the next page, when the last response carried a cursor. */
  next?: JsonObject;
}

/** Parses the hash: "#pkg.Service/Method?{json}". */
function parseHash(hash: string): { path: string; request: JsonObject; error?: string } {
  const h = hash.replace(/^#/, "");
  const q = h.indexOf("?");
  const path = decodeURIComponent(q < 0 ? h : h.slice(0, q));
  if (q < 0 || q === h.length - 1) return { path, request: {} };
  try {
    const v = JSON.parse(decodeURIComponent(h.slice(q + 1))) as JsonValue;
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not an object");
    return { path, request: v };
  } catch (err) {
    return { path, request: {}, error: `The link's request is not a JSON object: ${String(err)}` };
  }
}

/** The hash of an RPC and request; "," ":" "@" stay readable. */
export function hashOf(method: DescMethod, request: JsonObject): string {
  const json = JSON.stringify(request);
  const q = json === "{}" ? "" : "?" + encodeURIComponent(json).replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%40/g, "@");
  return `#${methodPath(method)}${q}`;
}

function main(): void {
  const catalog = loadCatalog();
  const settings = $<HTMLFormElement>("#settings");
  const gatewayInput = $<HTMLInputElement>("#gateway");
  const transportSelect = $<HTMLSelectElement>("#transport");
  const tokenInput = $<HTMLInputElement>("#token");
  const filter = $<HTMLInputElement>("#filter");
  const intro = $<HTMLElement>("#intro");
  const requestForm = $<HTMLFormElement>("#request");
  const fields = $<HTMLElement>("#fields");
  const nextButton = $<HTMLButtonElement>("#next");
  const result = $<HTMLElement>("#result");
  const status = $<HTMLElement>("#result .status");
  const errorBox = $<HTMLElement>("#result .error");
  const tableWrap = $<HTMLElement>("#result .table-wrap");
  const jsonView = $<HTMLDetailsElement>("#json");
  const curlView = $<HTMLElement>("#curl pre");

  const q = new URLSearchParams(location.search);
  const origin = location.protocol.startsWith("http") ? location.origin : "http://127.0.0.1:8090";
  gatewayInput.value = q.get("gateway") || origin;
  const t = q.get("transport");
  transportSelect.value = isTransportKind(t) ? t : "connect";

  const sidebar = renderCatalog(catalog, $("#services"), filter, $("#counts"), (m) => jsonRpcMethod(catalog, m));

  let current: Current | undefined;
  let generation = 0;
  let lastJson: JsonObject | undefined;
  let transport: { key: string; t: Transport } | undefined;

  const gateway = () => gatewayInput.value.trim().replace(/\/+$/, "");
  const getTransport = (): Transport => {
    const kind = transportSelect.value as TransportKind;
    const key = `${kind} ${gateway()}`;
    if (transport?.key !== key) transport = { key, t: newTransport(kind, gateway(), catalog.registry) };
    return transport.t;
  };

  const saveSettings = () => {
    const s = new URLSearchParams(location.search);
    s.set("gateway", gateway());
    s.set("transport", transportSelect.value);
    history.replaceState(null, "", `?${s}${location.hash}`);
  };
  settings.addEventListener("submit", (ev) => {
    ev.preventDefault();
    saveSettings();
  });
  settings.addEventListener("change", saveSettings);

  const setState = (state: ResultState) => {
    result.dataset.state = state;
    nextButton.disabled = !(state === "ready" && current?.next);
  };

  const showError = (err: unknown) => {
    const e = describeError(err);
    const code = document.createElement("span");
    code.className = "code";
    code.textContent = `[${e.code}]`;
    const parts: Node[] = [code, document.createTextNode(` ${e.message}`)];
    if (e.jsonRpc) parts.push(document.createTextNode(`\nJSON-RPC error ${e.jsonRpc}`));
    if (e.hint) parts.push(document.createTextNode(`\n${e.hint}`));
    errorBox.replaceChildren(...parts);
    errorBox.hidden = false;
  };

  const resetResult = () => {
    generation++;
    lastJson = undefined;
    errorBox.hidden = true;
    status.textContent = "";
    tableWrap.replaceChildren();
    jsonView.hidden = true;
    jsonView.open = false;
    result.dataset.page = "0";
    setState("idle");
  };

  const writeHash = () => {
    if (!current) return;
    history.replaceState(null, "", location.search + hashOf(current.method, current.form.value() as JsonObject));
    updateCurl();
  };

  const updateCurl = () => {
    if (!current) return;
    const body = JSON.stringify(current.form.value());
    const auth = tokenInput.value ? ` -H "Authorization: Bearer $TOKEN"` : "";
    curlView.textContent = `curl -s '${gateway()}/${methodPath(current.method)}' -H 'Content-Type: application/json'${auth} -d '${body.replace(/'/g, "'\\''")}'`;
  };

  /** Shows method with its form filled from request. */
  const show = (method: DescMethod, request: JsonObject) => {
    const form = messageForm(method.input, request);
    fields.replaceChildren(form.el);
    current = { method, paging: pagingOf(method), form, page: 0, rowsBefore: 0 };
    const rpc = jsonRpcMethod(catalog, method);
    $("#method-name").textContent = `${method.parent.name}.${method.name}`;
    document.title = `${method.parent.name}.${method.name} · hivegate API explorer`;
    const info: string[] = [`POST /${methodPath(method)}`];
    if (rpc) info.push(`JSON-RPC ${rpc}`);
    info.push(`${method.input.name} → ${method.output.name}`);
    if (current.paging) info.push(`pages: ${describePaging(current.paging)}`);
    $("#method-info").textContent = info.join(" · ");
    requestForm.dataset.method = methodPath(method);
    intro.hidden = true;
    requestForm.hidden = false;
    sidebar.select(method);
    resetResult();
    updateCurl();
    const unary = method.methodKind === "unary";
    $<HTMLButtonElement>("#call").disabled = !unary;
    if (!unary) status.textContent = `${method.methodKind} RPCs are not supported by the explorer.`;
  };

  const route = () => {
    const { path, request, error } = parseHash(location.hash);
    const method = path ? findMethod(catalog, path) : undefined;
    if (!method) {
      current = undefined;
      requestForm.hidden = true;
      intro.hidden = false;
      $("#intro-error").textContent = path ? `No RPC ${path} in this build of the page.` : "";
      document.title = "hivegate · API explorer";
      sidebar.select(undefined);
      resetResult();
      return;
    }
    show(method, request);
    if (error) {
      errorBox.textContent = error;
      errorBox.hidden = false;
    }
  };

  /** Calls the current RPC with request as page number page. */
  const call = async (request: JsonObject, page: number) => {
    const cur = current;
    if (!cur || cur.method.methodKind !== "unary") return;
    const gen = ++generation;
    setState("loading");
    errorBox.hidden = true;
    const invalid = fields.querySelector("[aria-invalid=true]");
    if (invalid) {
      errorBox.textContent = `The field ${(invalid as HTMLElement).dataset.path} does not hold valid JSON.`;
      errorBox.hidden = false;
      setState("error");
      return;
    }
    const started = performance.now();
    try {
      const input = fromJson(cur.method.input, request, { registry: catalog.registry });
      const headers = new Headers();
      if (tokenInput.value.trim()) headers.set("Authorization", `Bearer ${tokenInput.value.trim()}`);
      const res = await getTransport().unary(cur.method as DescMethod & { methodKind: "unary" }, undefined, callTimeoutMs, headers, input);
      if (gen !== generation) return;
      const ms = Math.round(performance.now() - started);
      const json = toJson(cur.method.output, res.message, { registry: catalog.registry }) as JsonObject;
      lastJson = json;
      if (page === 1) cur.rowsBefore = 0;
      cur.page = page;
      const rows = rowsOf(cur.method.output, json);
      const first = cur.rowsBefore + 1;
      tableWrap.replaceChildren(tableOf(rows, first));
      const parts = [`Page ${page}`];
      if (rows.isList) {
        parts.push(rows.cells.length > 0 ? `${rows.label} ${first}–${first + rows.cells.length - 1}` : `no ${rows.label}`);
        cur.rowsBefore += rows.cells.length;
      }
      parts.push(`${ms} ms`, transportSelect.selectedOptions[0]?.textContent ?? "");
      result.dataset.page = String(page);
      result.dataset.rows = String(rows.cells.length);
      jsonView.hidden = false;
      if (jsonView.open) fillJson();
      cur.next = undefined;
      let state: ResultState = "ready";
      if (cur.paging) {
        const n = nextPage(cur.paging, request, json);
        if (n.kind === "next") cur.next = n.request;
        else if (n.kind === "end") {
          state = "end";
          parts.push("end of list");
        } else {
          state = "stuck";
          parts.push(`the response's ${cur.paging.fieldNames.join(", ")} repeats the request: following it would fetch this page again`);
        }
      }
      status.textContent = parts.join(" · ");
      setState(state);
    } catch (err) {
      if (gen !== generation) return;
      showError(err);
      setState("error");
    }
  };

  const fillJson = () => {
    $("#json pre").textContent = lastJson === undefined ? "" : JSON.stringify(lastJson, null, 2);
  };
  jsonView.addEventListener("toggle", () => {
    if (jsonView.open) fillJson();
  });

  const callFromForm = () => {
    if (!current) return;
    current.next = undefined;
    writeHash();
    void call(current.form.value() as JsonObject, 1);
  };
  const followCursor = () => {
    if (!current?.next || result.dataset.state !== "ready") return;
    const cur = current;
    const request = cur.next!;
    const form = messageForm(cur.method.input, request);
    fields.replaceChildren(form.el);
    cur.form = form;
    writeHash();
    void call(request, cur.page + 1);
  };

  requestForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    callFromForm();
  });
  fields.addEventListener("input", writeHash);
  fields.addEventListener("change", writeHash);
  tokenInput.addEventListener("input", updateCurl);
  nextButton.addEventListener("click", followCursor);
  $("#reset").addEventListener("click", () => {
    if (current) show(current.method, {});
    writeHash();
  });
  window.addEventListener("hashchange", () => {
    const { path, request } = parseHash(location.hash);
    // The page writes the hash itself with replaceState, which fires no
    // hashchange; this is a link, a typed URL or history navigation.
    if (current && path === methodPath(current.method) && canonical(request) === canonical(current.form.value())) return;
    route();
  });

  document.addEventListener("keydown", (ev) => {
    const typing = ev.target instanceof HTMLElement && ev.target.matches("input, textarea, select, [contenteditable]");
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter") {
      ev.preventDefault();
      callFromForm();
    } else if (ev.altKey && (ev.key === "n" || ev.code === "KeyN")) {
      ev.preventDefault();
      followCursor();
    } else if (!typing && ev.key === "/") {
      ev.preventDefault();
      filter.focus();
      filter.select();
    } else if (!typing && ev.key === "n" && !ev.ctrlKey && !ev.metaKey) {
      followCursor();
    }
  });

  route();
  document.body.dataset.ready = "true";
}

main();
