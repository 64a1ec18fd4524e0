// Paging by convention: how the explorer finds a response's cursor and feeds
// it back into the request, for any RPC, without knowing the RPC.
//
// The convention (also in docs/api.md):
//   - A response field named `next_<x>` is a cursor when the request has what
//     it continues: either a field `<x>` of the same type (next_start →
//     start, next_page_token → page_token), or, for a message `next_<x>`,
//     fields named like each of its fields, with the same types, in the
//     request (GetAccountReputationsStart{account_lower_bound} →
//     account_lower_bound; GetFollowersStart{start} → start) or else in one
//     message field of the request (DiscussionsStart{start_author,
//     start_permlink} → query.start_author, query.start_permlink).
//   - The next page's request is the current request with those fields
//     replaced by the cursor's values (a cursor field left unset clears the
//     request field).
//   - When some cursor fields have presence (messages, proto3 `optional`),
//     only they count: the list has ended when none of them is set. Fields
//     without presence (a plain next_block_range_begin) are then
//     informational. When no cursor field has presence (a string
//     next_page_token), the list has ended when all are at their zero value.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { DescField, DescMethod } from "@bufbuild/protobuf";

/** One response field and the request field(s) it fills. */
interface Link {
  /** The response's next_<x> field. */
  from: DescField;
  /** Request field <x> of the same type, copied whole. */
  to?: DescField;
  /** Or: the cursor message's fields and the request fields named like them, */
  spread?: { from: DescField; to: DescField }[];
  /** in the request itself or in this message field of it. */
  via?: DescField;
}

/** How an RPC pages; undefined from pagingOf when it does not. */
export interface Paging {
  readonly links: readonly Link[];
  /** The response fields that carry the cursor, for display: "next_start". */
  readonly fieldNames: readonly string[];
}

/** The result of following a page's cursor. */
export type Next =
  /** The request for the next page. */
  | { kind: "next"; request: JsonObject }
  /** The response carried no cursor: this page was the last. */
  | { kind: "end" }
  /** The cursor leads to the request just sent: following it would loop. */
  | { kind: "stuck" };

/** Returns how method pages by the convention above, or undefined when it does not. */
export function pagingOf(method: DescMethod): Paging | undefined {
  const req = method.input;
  const links: Link[] = [];
  for (const from of method.output.fields) {
    if (!from.name.startsWith("next_") || from.fieldKind === "list" || from.fieldKind === "map") continue;
    const name = from.name.slice("next_".length);
    const to = req.fields.find((f) => f.name === name);
    if (to && sameType(from, to)) {
      links.push({ from, to });
      continue;
    }
    if (from.fieldKind !== "message" || from.message.fields.length === 0) continue;
    const containers: (DescField | undefined)[] = [undefined, ...req.fields.filter((f) => f.fieldKind === "message")];
    for (const via of containers) {
      const fields = via?.fieldKind === "message" ? via.message.fields : req.fields;
      const spread = from.message.fields.map((f) => ({ from: f, to: fields.find((r) => r.name === f.name) }));
      if (spread.every((s) => s.to && sameType(s.from, s.to))) {
        links.push({ from, spread: spread as { from: DescField; to: DescField }[], via });
        break;
      }
    }
  }
  if (links.length === 0) return undefined;
  const withPresence = links.filter((l) => hasPresence(l.from));
  const used = withPresence.length > 0 ? withPresence : links;
  return { links: used, fieldNames: used.map((l) => l.from.name) };
}

/**
 * Returns what follows a page: the next request built from request (as
 * protojson) and response (as protojson, defaults left out), the end of the
 * list, or "stuck" when the cursor would send the same request again.
 */
export function nextPage(paging: Paging, request: JsonObject, response: JsonObject): Next {
  const next: JsonObject = { ...request };
  let any = false;
  for (const link of paging.links) {
    const v = response[link.from.jsonName];
    if (v === undefined || v === null) continue;
    any = true;
    if (link.to) {
      setField(next, link.to, v);
    } else if (link.spread && isObject(v)) {
      let target = next;
      if (link.via) {
        const inner = next[link.via.jsonName] ?? next[link.via.name];
        target = isObject(inner) ? { ...inner } : {};
        delete next[link.via.name];
        next[link.via.jsonName] = target;
      }
      for (const s of link.spread) setField(target, s.to, v[s.from.jsonName]);
    }
  }
  if (!any) return { kind: "end" };
  if (canonical(next) === canonical(request)) return { kind: "stuck" };
  return { kind: "next", request: next };
}

/** Sets (or, for undefined, clears) a request field in protojson, under its JSON name only. */
function setField(obj: JsonObject, field: DescField, v: JsonValue | undefined): void {
  delete obj[field.name];
  if (v === undefined) delete obj[field.jsonName];
  else obj[field.jsonName] = v;
}

function sameType(a: DescField, b: DescField): boolean {
  if (a.fieldKind !== b.fieldKind) return false;
  switch (a.fieldKind) {
    case "scalar":
      return b.fieldKind === "scalar" && a.scalar === b.scalar;
    case "enum":
      return b.fieldKind === "enum" && a.enum.typeName === b.enum.typeName;
    case "message":
      return b.fieldKind === "message" && a.message.typeName === b.message.typeName;
    default:
      return false;
  }
}

/** Whether a field tells "unset" from its zero value. */
function hasPresence(f: DescField): boolean {
  return f.fieldKind === "message" || f.oneof !== undefined || f.presence === 1; // 1: EXPLICIT
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** JSON with object keys sorted, to compare two requests. */
export function canonical(v: JsonValue | undefined): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(v)) return v.map((x) => sortKeys(x) ?? null);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) {
      const x = sortKeys(v[k]);
      if (x !== undefined) out[k] = x;
    }
    return out;
  }
  return v;
}

/** Describes which fields a method's cursor fills, for the page: "next_start → start". */
export function describePaging(paging: Paging): string {
  return paging.links
    .map((l) => {
      const prefix = l.via ? `${l.via.name}.` : "";
      return l.to ? `${l.from.name} → ${l.to.name}` : `${l.from.name} → ${l.spread!.map((s) => prefix + s.to.name).join(", ")}`;
    })
    .join("; ");
}
