// The list of services and RPCs beside the form: one link per RPC (its deep
// link), a filter box, and arrow keys to move between the links shown.
import type { DescMethod } from "@bufbuild/protobuf";
import { methodPath, type Catalog } from "./catalog";
import { describePaging, pagingOf } from "./cursor";

/** The rendered list. */
export interface Sidebar {
  /** Marks method as the one shown (undefined: none) and scrolls it into view. */
  select(method: DescMethod | undefined): void;
}

/**
 * Renders every service of catalog into container, wires filter to it and
 * writes the totals into counts. jsonRpc names an RPC's JSON-RPC method.
 */
export function renderCatalog(
  catalog: Catalog,
  container: HTMLElement,
  filter: HTMLInputElement,
  counts: HTMLElement,
  jsonRpc: (m: DescMethod) => string | undefined,
): Sidebar {
  const links = new Map<string, HTMLAnchorElement>();
  const sections: { el: HTMLElement; items: { li: HTMLElement; text: string }[] }[] = [];
  let rpcs = 0;
  for (const service of catalog.services) {
    const section = document.createElement("section");
    section.className = "service";
    section.dataset.service = service.typeName;
    const h = document.createElement("h2");
    h.textContent = service.name;
    const pkg = document.createElement("small");
    pkg.textContent = ` ${service.file.proto.package}`;
    h.append(pkg);
    const ul = document.createElement("ul");
    const items: { li: HTMLElement; text: string }[] = [];
    for (const method of service.methods) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      const path = methodPath(method);
      a.href = `#${path}`;
      a.textContent = method.name;
      a.dataset.method = path;
      const rpc = jsonRpc(method);
      if (rpc) a.dataset.jsonrpc = rpc;
      const paging = pagingOf(method);
      if (paging) a.dataset.paging = describePaging(paging);
      a.title = [rpc, paging && `pages: ${a.dataset.paging}`].filter(Boolean).join("\n");
      li.append(a);
      ul.append(li);
      links.set(path, a);
      items.push({ li, text: `${path} ${rpc ?? ""}`.toLowerCase() });
      rpcs++;
    }
    section.append(h, ul);
    container.append(section);
    sections.push({ el: section, items });
  }
  counts.textContent = `${catalog.services.length} services · ${rpcs} RPCs`;
  counts.dataset.services = String(catalog.services.length);
  counts.dataset.rpcs = String(rpcs);

  const visible = () => [...links.values()].filter((a) => !a.closest<HTMLElement>("[hidden]"));
  filter.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const s of sections) {
      let any = false;
      for (const item of s.items) {
        item.li.hidden = !words.every((w) => item.text.includes(w));
        any ||= !item.li.hidden;
      }
      s.el.hidden = !any;
    }
  });
  filter.addEventListener("keydown", (ev) => {
    const first = visible()[0];
    if (ev.key === "Enter" && first) {
      ev.preventDefault();
      first.click();
    } else if (ev.key === "ArrowDown" && first) {
      ev.preventDefault();
      first.focus();
    } else if (ev.key === "Escape") {
      filter.value = "";
      filter.dispatchEvent(new Event("input"));
    }
  });
  container.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
    const shown = visible();
    const i = shown.indexOf(document.activeElement as HTMLAnchorElement);
    if (i < 0) return;
    ev.preventDefault();
    if (ev.key === "ArrowUp" && i === 0) filter.focus();
    else shown[Math.min(shown.length - 1, ev.key === "ArrowDown" ? i + 1 : i - 1)]?.focus();
  });

  let selected: HTMLAnchorElement | undefined;
  return {
    select(method) {
      selected?.removeAttribute("aria-current");
      selected = method ? links.get(methodPath(method)) : undefined;
      if (selected) {
        selected.setAttribute("aria-current", "page");
        selected.scrollIntoView({ block: "nearest" });
      }
    },
  };
}
