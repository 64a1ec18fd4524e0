// The admin listener's JSON endpoints the operator page reads (see
// gateway/admin*.go). URLs are relative to the page, served at
// /operator/, so that the page also works behind a path prefix.

/** One node as GET /admin/nodes shows it. */
export interface NodeView {
  backend: string;
  node: number;
  url: string;
  kind?: string;
  up: boolean;
  in_service: boolean;
  cordoned: boolean;
  lagging: boolean;
  reason?: string;
  head_block: number;
  head_lag_blocks: number | null;
  head_age_s: number | null;
  latency_ms: number | null;
  in_flight: number;
}

/** One backend and its nodes. */
export interface BackendView {
  name: string;
  in_service: boolean;
  nodes: NodeView[];
}

/** One row of the effective route table (GET /admin/routes). */
export interface RouteEntry {
  key: string;
  routed: boolean;
  backend?: string;
  url?: string;
  ttl?: number | string;
  timeout_s: number;
  retries: number;
}

/** The routes answer. */
export interface Routes {
  source: string;
  default_namespace: string;
  routes: RouteEntry[];
}

/** One method's figures over the stats window. */
export interface MethodStat {
  method: string;
  calls: number;
  rate_per_s: number;
  errors: number;
  cache_hits: number;
  upstream_calls: number;
  upstream_time_ms: number;
  upstream_mean_ms: number;
}

/** GET /admin/stats. */
export interface Stats {
  now: string;
  counting_since: string;
  cache: {
    entries: number;
    bytes: number;
    capacity_bytes: number;
    hits: number;
    misses: number;
    evictions: number;
    expired: number;
    hit_ratio: number | null;
    fill_ratio: number;
  } | null;
  window_s: number;
  calls: number;
  rate_per_s: number;
  errors: number;
  served_from_cache: number | null;
  top_by_rate: MethodStat[];
  top_by_upstream_time: MethodStat[];
}

/** One recent error (GET /admin/errors). */
export interface RecentError {
  time: string;
  frontend: string;
  method: string;
  code: number;
  kind: string;
  message: string;
  backend?: string;
}

/** GET /admin/errors. */
export interface Errors {
  capacity: number;
  total: number;
  errors: RecentError[];
}

/** GET /admin/health, the part the page shows. */
export interface Health {
  version: string;
  config_source: string;
  config_loaded_at: string;
  last_irreversible_block: number;
  head_block: number;
}

/** An admin endpoint answered 401: the page needs hivegate.admin_token. */
export class Unauthorized extends Error {}

/** An admin endpoint refused a request; message is its {"error"} text. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const tokenKey = "hivegate-admin-token";

/** The token the operator typed in, kept for the browser tab only. */
export function token(): string {
  return sessionStorage.getItem(tokenKey) ?? "";
}

/** Keeps (or, empty, forgets) the token. */
export function setToken(t: string): void {
  if (t) sessionStorage.setItem(tokenKey, t);
  else sessionStorage.removeItem(tokenKey);
}

/** Calls an admin endpoint and returns its JSON. */
async function call<T>(method: "GET" | "POST", path: string): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  const res = await fetch(new URL(`../${path}`, location.href), { method, headers, cache: "no-store" });
  if (res.status === 401) throw new Unauthorized("the admin endpoints want hivegate.admin_token");
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Refused(res.status, `${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  // GET /admin/health answers 503 with its JSON when no backend can be called.
  if (!res.ok && !(path === "admin/health" && res.status === 503)) {
    const msg = (body as { error?: string }).error ?? `HTTP ${res.status}`;
    throw new Refused(res.status, msg);
  }
  return body as T;
}

export const getNodes = () => call<{ backends: BackendView[] }>("GET", "admin/nodes");
export const getRoutes = () => call<Routes>("GET", "admin/routes");
export const getStats = () => call<Stats>("GET", "admin/stats?top=10");
export const getErrors = () => call<Errors>("GET", "admin/errors");
export const getHealth = () => call<Health>("GET", "admin/health");

/** Cordons (on) or uncordons a node; force cordons the last node that takes calls. */
export function setCordon(backend: string, node: number, on: boolean, force = false): Promise<{ node: NodeView }> {
  const path = `admin/nodes/${encodeURIComponent(backend)}/${node}/${on ? "cordon" : "uncordon"}${force ? "?force=true" : ""}`;
  return call("POST", path);
}
