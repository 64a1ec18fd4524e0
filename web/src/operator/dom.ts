// Small DOM helpers: every value shown is set as text, never as HTML.

/** A cell's content: text, or an element. */
export type Cell = string | number | Node;

/** Makes an element with a class and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = "", ...children: Cell[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) e.append(typeof c === "number" ? String(c) : c);
  return e;
}

/** Replaces the rows of a table's tbody. */
export function fillRows(table: HTMLTableElement, rows: HTMLTableRowElement[]): void {
  table.tBodies[0].replaceChildren(...rows);
}

/** A row of cells. */
export function row(...cells: Cell[]): HTMLTableRowElement {
  const tr = el("tr");
  for (const c of cells) tr.append(el("td", "", c));
  return tr;
}

/** The element with the id, which the page's HTML holds. */
export function byId<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the page has no #${id}`);
  return e as T;
}

/** A number with at most `digits` decimals, "–" for null. */
export function num(v: number | null | undefined, digits = 0): string {
  if (v === null || v === undefined) return "–";
  return v.toLocaleString("en-US", { maximumFractionDigits: digits });
}

/** A ratio as a percentage, "–" for null. */
export function pct(v: number | null | undefined): string {
  return v === null || v === undefined ? "–" : `${(v * 100).toFixed(1)} %`;
}

/** Bytes in MiB or KiB. */
export function bytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
}

/** An age in seconds, in the largest unit that keeps it readable; "–" for null. */
export function age(s: number | null): string {
  if (s === null) return "–";
  if (Math.abs(s) < 120) return `${Math.round(s)} s`;
  if (Math.abs(s) < 7200) return `${Math.round(s / 60)} min`;
  if (Math.abs(s) < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}
