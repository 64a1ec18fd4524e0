// Renders each section of the operator page from the admin endpoints'
// answers.
import type { BackendView, Errors, MethodStat, NodeView, Routes, Stats } from "./api";
import { age, byId, bytes, el, fillRows, num, pct, row } from "./dom";

/** What a node's state cell says. */
function nodeState(n: NodeView): string {
  if (n.cordoned) return "cordoned";
  if (n.in_service) return "in service";
  return n.up ? "out of service" : "down";
}

/**
 * Renders the nodes table. Each row carries data-backend, data-node and
 * data-state, and a button that cordons or uncordons its node through
 * onCordon.
 */
export function renderNodes(backends: BackendView[], onCordon: (n: NodeView) => void): void {
  const rows: HTMLTableRowElement[] = [];
  for (const b of backends) {
    const head = el("tr", "backend");
    const title = el("th", "", b.name, " ", el("span", b.in_service ? "ok" : "bad", b.in_service ? "in service" : "no node in service"));
    title.colSpan = 11;
    head.append(title);
    head.dataset.backend = b.name;
    head.dataset.inService = String(b.in_service);
    rows.push(head);
    for (const n of b.nodes) {
      const button = el("button", "cordon", n.cordoned ? "Uncordon" : "Cordon");
      button.type = "button";
      button.title = n.cordoned ? "Let the node take calls again" : "Drain the node: no new calls (calls in flight finish)";
      button.addEventListener("click", () => onCordon(n));
      const state = el("span", `state ${nodeState(n).replaceAll(" ", "-")}`, nodeState(n));
      const tr = row(
        n.node,
        el("code", "", n.url),
        n.kind ?? "",
        state,
        num(n.head_block),
        num(n.head_lag_blocks),
        age(n.head_age_s),
        n.latency_ms === null ? "–" : `${num(n.latency_ms, 1)} ms`,
        n.in_flight,
        n.reason ?? "",
        button,
      );
      tr.className = "node";
      tr.dataset.backend = n.backend;
      tr.dataset.node = String(n.node);
      tr.dataset.state = nodeState(n);
      tr.dataset.cordoned = String(n.cordoned);
      tr.dataset.inFlight = String(n.in_flight);
      rows.push(tr);
    }
  }
  fillRows(byId("nodes-table"), rows);
}

/** Renders the cache and traffic figures. */
export function renderStats(s: Stats): void {
  const c = s.cache;
  const figures: [string, string, string][] = [
    ["calls", `${num(s.rate_per_s, 2)}/s`, `${num(s.calls)} calls in the last ${num(s.window_s)} s`],
    ["served-from-cache", pct(s.served_from_cache), "of those calls answered from the cache"],
    ["window-errors", num(s.errors), "of those calls answered with an error"],
    ["hit-ratio", pct(c?.hit_ratio), c ? `cache hit ratio since start (${num(c.hits)} hits, ${num(c.misses)} misses)` : "caching is off"],
    ["fill", pct(c?.fill_ratio), c ? `cache fill: ${bytes(c.bytes)} of ${bytes(c.capacity_bytes)}, ${num(c.entries)} entries` : "caching is off"],
  ];
  const list = byId("figures");
  list.replaceChildren(
    ...figures.map(([id, value, what]) => {
      const d = el("div", "figure", el("strong", "", value), el("span", "", what));
      d.dataset.figure = id;
      return d;
    }),
  );
  const fill = byId<HTMLProgressElement>("fill-bar");
  fill.value = c?.fill_ratio ?? 0;
}

/** Renders one top-methods table. */
export function renderTop(id: string, methods: MethodStat[]): void {
  fillRows(
    byId(id),
    methods.map((m) => {
      const tr = row(el("code", "", m.method), num(m.rate_per_s, 2), m.calls, m.errors, m.cache_hits, m.upstream_calls, num(m.upstream_time_ms, 1), num(m.upstream_mean_ms, 1));
      tr.dataset.method = m.method;
      return tr;
    }),
  );
}

/** Renders the recent errors. */
export function renderErrors(e: Errors): void {
  byId("errors-total").textContent = `${num(e.total)} since start, the last ${e.capacity} kept`;
  fillRows(
    byId("errors-table"),
    e.errors.map((x) => {
      const tr = row(new Date(x.time).toLocaleTimeString(), el("code", "", x.method), x.code, x.kind, x.backend ?? "", x.message);
      tr.dataset.kind = x.kind;
      return tr;
    }),
  );
}

/** Renders the route table, keeping the rows the filter matches. */
export function renderRoutes(r: Routes, filter: string): void {
  byId("routes-source").textContent = r.source;
  const f = filter.trim().toLowerCase();
  fillRows(
    byId("routes-table"),
    r.routes
      .filter((x) => !f || x.key.toLowerCase().includes(f) || (x.backend ?? "").toLowerCase().includes(f))
      .map((x) => {
        const tr = row(el("code", "", x.key), x.routed ? (x.backend ?? "") : "not routed", String(x.ttl ?? "–"), `${num(x.timeout_s, 3)} s`, x.retries);
        tr.dataset.key = x.key;
        if (!x.routed) tr.className = "unrouted";
        return tr;
      }),
  );
}
