// A response as a table. Which rows: the response's repeated field that has
// items (or its first repeated field, empty, so that an empty page shows as
// one); with no repeated field, the response's fields as name/value rows,
// looking through a response that wraps a single message or array
// ({"block": {...}}, {"result": [...]}).
import type { DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";

/** The rows a response shows. */
export interface Rows {
  /** What the rows are: the repeated field's name, or the wrapped field's. */
  readonly label: string;
  /** Whether the rows are items of a list (numbered, counted across pages) rather than fields. */
  readonly isList: boolean;
  readonly columns: readonly string[];
  readonly cells: readonly (readonly JsonValue[])[];
}

/** Returns the rows of response json, a message of type msg in protojson. */
export function rowsOf(msg: DescMessage, json: JsonObject): Rows {
  const lists = msg.fields.filter((f) => f.fieldKind === "list");
  const full = lists.find((f) => (json[f.jsonName] as JsonValue[] | undefined)?.length);
  const list = full ?? lists[0];
  if (list) return listRows(list.name, (json[list.jsonName] as JsonValue[] | undefined) ?? []);
  let v: JsonValue = json;
  let label = "";
  const keys = Object.keys(json);
  if (keys.length === 1 && typeof json[keys[0]] === "object" && json[keys[0]] !== null) {
    label = fieldName(msg, keys[0]);
    v = json[keys[0]];
  }
  if (Array.isArray(v)) return listRows(label, v);
  if (typeof v !== "object" || v === null) return { label, isList: false, columns: ["field", "value"], cells: [[label, v]] };
  return { label, isList: false, columns: ["field", "value"], cells: Object.entries(v).map(([k, x]) => [k, x]) };
}

function fieldName(msg: DescMessage, jsonName: string): string {
  return msg.fields.find((f) => f.jsonName === jsonName)?.name ?? jsonName;
}

function listRows(label: string, items: JsonValue[]): Rows {
  if (items.length > 0 && items.every((x) => typeof x === "object" && x !== null && !Array.isArray(x))) {
    const columns: string[] = [];
    const seen = new Set<string>();
    for (const item of items as JsonObject[]) {
      for (const k of Object.keys(item)) {
        if (!seen.has(k)) {
          seen.add(k);
          columns.push(k);
        }
      }
    }
    return { label, isList: true, columns, cells: (items as JsonObject[]).map((item) => columns.map((c) => item[c] ?? "")) };
  }
  return { label, isList: true, columns: ["value"], cells: items.map((x) => [x]) };
}

/** The symbols of the assets database_api returns, by NAI. */
const symbols: Record<string, string> = {
  "@@000000021": "HIVE",
  "@@000000013": "HBD",
  "@@000000037": "VESTS",
};

/** The longest text a cell shows; the rest is in its title and in the JSON view. */
const cellMax = 140;

/** Formats one value for a cell: assets as "1.000 HIVE", messages and lists as short JSON. */
export function cellText(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v !== "object") return String(v);
  if (!Array.isArray(v)) {
    const asset = assetText(v);
    if (asset !== undefined) return asset;
  }
  return JSON.stringify(v);
}

function assetText(o: JsonObject): string | undefined {
  const keys = Object.keys(o);
  const amount = o.amount;
  const unit = typeof o.nai === "string" ? (symbols[o.nai] ?? o.nai) : typeof o.symbol === "string" ? o.symbol : undefined;
  if (unit === undefined || keys.some((k) => !["amount", "precision", "nai", "symbol"].includes(k))) return undefined;
  if (typeof amount !== "string" && typeof amount !== "number") return undefined;
  const precision = typeof o.precision === "number" ? o.precision : 0;
  const s = String(amount ?? "0");
  const neg = s.startsWith("-");
  const digits = (neg ? s.slice(1) : s).padStart(precision + 1, "0");
  const whole = digits.slice(0, digits.length - precision);
  const frac = precision > 0 ? "." + digits.slice(digits.length - precision) : "";
  return `${neg ? "-" : ""}${whole}${frac} ${unit}`;
}

/** Returns the table of rows; list rows are numbered from first. */
export function tableOf(rows: Rows, first: number): HTMLTableElement {
  const table = document.createElement("table");
  table.id = "result-table";
  table.dataset.label = rows.label;
  const head = table.createTHead().insertRow();
  const columns = rows.isList ? ["#", ...rows.columns] : rows.columns;
  for (const c of columns) {
    const th = document.createElement("th");
    th.textContent = c;
    th.scope = "col";
    head.append(th);
  }
  const body = table.createTBody();
  rows.cells.forEach((cells, i) => {
    const tr = body.insertRow();
    if (rows.isList) {
      const td = tr.insertCell();
      td.className = "n";
      td.textContent = String(first + i);
    }
    for (const v of cells) {
      const td = tr.insertCell();
      const text = cellText(v);
      if (typeof v === "object" && v !== null) td.className = "json";
      if (text.length > cellMax) {
        td.textContent = text.slice(0, cellMax - 1) + "…";
        td.title = text.length > 4000 ? text.slice(0, 4000) + "…" : text;
      } else {
        td.textContent = text;
      }
    }
  });
  return table;
}
