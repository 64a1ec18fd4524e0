// The operator page: served by the admin listener at /operator/, it reads
// the admin endpoints every few seconds and shows the nodes (with cordon
// and uncordon), the cache and traffic figures, the top methods, the
// recent errors and the route table. With hivegate.admin_token set it asks
// for the token and keeps it for the tab (sessionStorage).
import "./style.css";
import { getErrors, getHealth, getNodes, getRoutes, getStats, Refused, setCordon, setToken, Unauthorized, type NodeView, type Routes } from "./api";
import { byId } from "./dom";
import { renderErrors, renderNodes, renderRoutes, renderStats, renderTop } from "./render";

/** How often the page refreshes, in ms (?every= overrides, at least 250). */
const every = Math.max(250, Number(new URLSearchParams(location.search).get("every")) || 2000);
/** The route table changes only on reload: it is read again every routesEvery refreshes. */
const routesEvery = 15;

let routes: Routes | undefined;
let refreshes = 0;
let timer: number | undefined;
let busy = false;

/** Shows a message in the notice line; error colours it. */
function notice(text: string, error = false): void {
  const n = byId("notice");
  n.textContent = text;
  n.className = error ? "error" : "";
  n.hidden = text === "";
}

/** Shows the token form. */
function askToken(): void {
  document.body.dataset.state = "login";
  byId("login").hidden = false;
  byId<HTMLInputElement>("token").focus();
}

/** Reads every endpoint and renders the page. */
async function refresh(): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    const needRoutes = !routes || refreshes % routesEvery === 0;
    const [nodes, stats, errors, health, r] = await Promise.all([
      getNodes(),
      getStats(),
      getErrors(),
      getHealth(),
      needRoutes ? getRoutes() : Promise.resolve(routes),
    ]);
    routes = r;
    renderNodes(nodes.backends, toggle);
    renderStats(stats);
    renderTop("top-rate", stats.top_by_rate);
    renderTop("top-time", stats.top_by_upstream_time);
    renderErrors(errors);
    if (routes) renderRoutes(routes, byId<HTMLInputElement>("route-filter").value);
    byId("about").textContent =
      `hivegate ${health.version} · ${health.config_source} loaded ${new Date(health.config_loaded_at).toLocaleString()} · ` +
      `head ${health.head_block.toLocaleString("en-US")}, LIB ${health.last_irreversible_block.toLocaleString("en-US")} · ` +
      `updated ${new Date(stats.now).toLocaleTimeString()}`;
    refreshes++;
    byId("login").hidden = true;
    document.body.dataset.state = "ready";
    document.body.dataset.refreshes = String(refreshes);
    if (byId("notice").className === "error" && byId("notice").dataset.sticky !== "true") notice("");
  } catch (err) {
    if (err instanceof Unauthorized) {
      askToken();
      return;
    }
    document.body.dataset.state = "error";
    notice(`Could not read the admin endpoints: ${(err as Error).message}`, true);
  } finally {
    busy = false;
  }
}

/** Cordons or uncordons a node, asking before cordoning the last one. */
async function toggle(n: NodeView): Promise<void> {
  const what = `${n.backend} node ${n.node}`;
  const sticky = byId("notice");
  try {
    await setCordon(n.backend, n.node, !n.cordoned);
    notice(n.cordoned ? `${what} uncordoned: it takes calls again.` : `${what} cordoned: it gets no new calls; calls in flight finish.`);
  } catch (err) {
    if (err instanceof Unauthorized) {
      askToken();
      return;
    }
    if (err instanceof Refused && err.status === 409 && !n.cordoned) {
      if (confirm(`${err.message}\n\nCordon ${what} anyway?`)) {
        try {
          await setCordon(n.backend, n.node, true, true);
          notice(`${what} cordoned by force: ${n.backend} has no node to call until one is uncordoned.`, true);
          sticky.dataset.sticky = "true";
        } catch (e2) {
          notice(`${what}: ${(e2 as Error).message}`, true);
        }
      } else {
        notice(`${what} not cordoned: ${err.message}`, true);
        sticky.dataset.sticky = "true";
      }
    } else {
      notice(`${what}: ${(err as Error).message}`, true);
      sticky.dataset.sticky = "true";
    }
  }
  await refresh();
}

/** Refreshes now and then every `every` ms. */
function schedule(): void {
  window.clearInterval(timer);
  void refresh();
  timer = window.setInterval(() => void refresh(), every);
}

document.addEventListener("DOMContentLoaded", () => {
  byId("login").addEventListener("submit", (ev) => {
    ev.preventDefault();
    setToken(byId<HTMLInputElement>("token").value.trim());
    schedule();
  });
  byId("route-filter").addEventListener("input", () => {
    if (routes) renderRoutes(routes, byId<HTMLInputElement>("route-filter").value);
  });
  byId("notice").addEventListener("click", () => {
    byId("notice").dataset.sticky = "false";
    notice("");
  });
  schedule();
});
