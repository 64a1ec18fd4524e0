// A form for any request message, built from its descriptor: one control per
// field, enums as choices, oneofs as a choice of case, repeated fields as
// lists with add and remove, nested messages opened on demand (they may be
// recursive). The form's value is the request in protojson (JSON names,
// defaults left out), so it round-trips through the URL hash.
//
// Presence: a field without presence (a plain proto3 scalar) at its zero
// value is left out, which is what the server sees anyway. A field with
// presence (proto3 `optional`, a message) is unset until the user sets it:
// its "set" box, ticked by typing into the field.
import { ScalarType, type DescEnum, type DescField, type DescMessage, type DescOneof, type JsonObject, type JsonValue } from "@bufbuild/protobuf";

/** One control of the form and its current value. */
export interface Editor {
  readonly el: HTMLElement;
  /** The value in protojson, or undefined for "leave the field out". */
  value(): JsonValue | undefined;
}

/** Returns the form of message msg filled with init (protojson; JSON or proto names). */
export function messageForm(msg: DescMessage, init: JsonObject, path = ""): Editor {
  const el = document.createElement("div");
  el.className = "message";
  const parts: { key: string; ed: Editor }[] = [];
  for (const member of msg.members) {
    if (member.kind === "oneof") {
      const ed = oneofEditor(member, init, path);
      el.append(ed.el);
      parts.push({ key: "", ed });
    } else {
      const ed = fieldEditor(member, pick(init, member), join(path, member.jsonName));
      el.append(row(member.name, typeLabel(member), ed.el, join(path, member.jsonName), member.fieldKind === "message" || member.fieldKind === "list"));
      parts.push({ key: member.jsonName, ed });
    }
  }
  if (msg.members.length === 0) {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = `${msg.name} has no fields.`;
    el.append(p);
  }
  return {
    el,
    value() {
      const out: JsonObject = {};
      for (const { key, ed } of parts) {
        const v = ed.value();
        if (v === undefined) continue;
        if (key === "") Object.assign(out, v as JsonObject);
        else out[key] = v;
      }
      return out;
    },
  };
}

function pick(init: JsonObject, f: DescField): JsonValue | undefined {
  return init[f.jsonName] ?? init[f.name];
}

function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

/** Tells the form that its shape changed (a case chosen, an item added): the value changed too. */
function changed(el: HTMLElement): void {
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

function row(name: string, type: string, control: HTMLElement, path: string, block: boolean): HTMLElement {
  const div = document.createElement("div");
  div.className = block ? "field block" : "field";
  const label = document.createElement("label");
  label.htmlFor = idOf(path);
  label.append(name, " ");
  const t = document.createElement("span");
  t.className = "type";
  t.textContent = type;
  label.append(t);
  div.append(label, control);
  return div;
}

/** The element id of the control at path. */
function idOf(path: string): string {
  return `f-${path}`;
}

function fieldEditor(f: DescField, init: JsonValue | undefined, path: string): Editor {
  // A oneof case is set by choosing it: its control needs no "set" box.
  const explicit = f.presence === 1 && f.oneof === undefined;
  switch (f.fieldKind) {
    case "scalar":
      return scalarEditor(f.scalar, init, path, explicit);
    case "enum":
      return enumEditor(f.enum, init, path, explicit);
    case "message":
      return messageFieldEditor(f.message, init, path);
    case "list":
      return listEditor(f, init, path);
    case "map":
      return jsonEditor(init, path, "{}");
  }
}

/** The zero value of a field in protojson, for a oneof case chosen but left empty. */
function zeroOf(f: DescField): JsonValue {
  if (f.fieldKind === "message") return wellKnownZero(f.message) ?? {};
  if (f.fieldKind === "enum") return f.enum.values[0]?.name ?? 0;
  if (f.fieldKind === "scalar") {
    if (f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES) return "";
    if (f.scalar === ScalarType.BOOL) return false;
    return is64(f.scalar) ? "0" : 0;
  }
  return null;
}

function wellKnownZero(m: DescMessage): JsonValue | undefined {
  switch (m.typeName) {
    case "google.protobuf.Timestamp":
      return "1970-01-01T00:00:00Z";
    case "google.protobuf.Value":
      return null;
  }
  return undefined;
}

function is64(t: ScalarType): boolean {
  return [ScalarType.INT64, ScalarType.UINT64, ScalarType.FIXED64, ScalarType.SFIXED64, ScalarType.SINT64].includes(t);
}

function isInteger(t: ScalarType): boolean {
  return t !== ScalarType.DOUBLE && t !== ScalarType.FLOAT && t !== ScalarType.BOOL && t !== ScalarType.STRING && t !== ScalarType.BYTES;
}

/** "set" box of a field with presence; ticked when the field is edited. */
function presenceBox(path: string, set: boolean, control: HTMLElement): { box: HTMLInputElement; el: HTMLElement } {
  const box = document.createElement("input");
  box.type = "checkbox";
  box.className = "presence";
  box.checked = set;
  box.title = "Send this field (it has presence: unset differs from its zero value)";
  box.setAttribute("aria-label", `set ${path}`);
  box.dataset.presence = path;
  control.addEventListener("input", () => {
    box.checked = true;
  });
  const wrap = document.createElement("span");
  wrap.className = "with-presence";
  wrap.append(box, control);
  return { box, el: wrap };
}

function scalarEditor(t: ScalarType, init: JsonValue | undefined, path: string, explicit: boolean): Editor {
  if (t === ScalarType.BOOL) {
    if (explicit) {
      const sel = select(path, [["", "unset"], ["true", "true"], ["false", "false"]], init === undefined || init === null ? "" : String(init));
      return { el: sel, value: () => (sel.value === "" ? undefined : sel.value === "true") };
    }
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = idOf(path);
    box.dataset.path = path;
    box.checked = init === true || init === "true";
    return { el: box, value: () => (box.checked ? true : undefined) };
  }
  const input = document.createElement("input");
  input.type = "text";
  input.id = idOf(path);
  input.dataset.path = path;
  input.spellcheck = false;
  input.autocomplete = "off";
  if (init !== undefined && init !== null) input.value = String(init);
  if (isInteger(t)) {
    input.inputMode = "numeric";
    input.placeholder = "0";
  } else if (t === ScalarType.DOUBLE || t === ScalarType.FLOAT) {
    input.inputMode = "decimal";
    input.placeholder = "0";
  } else if (t === ScalarType.BYTES) {
    input.placeholder = "base64";
  }
  const parse = (): JsonValue | undefined => {
    const s = input.value.trim();
    if (t === ScalarType.STRING) return input.value;
    if (s === "") return undefined;
    if (t === ScalarType.BYTES || is64(t)) return s;
    const n = Number(s);
    return Number.isFinite(n) ? n : s; // the server's JSON parser names what is wrong
  };
  if (!explicit) {
    return {
      el: input,
      value() {
        const v = parse();
        return v === "" || v === 0 || v === "0" ? undefined : v;
      },
    };
  }
  const p = presenceBox(path, init !== undefined && init !== null, input);
  return { el: p.el, value: () => (p.box.checked ? (parse() ?? "") : undefined) };
}

function select(path: string, options: [string, string][], selected: string): HTMLSelectElement {
  const sel = document.createElement("select");
  sel.id = idOf(path);
  sel.dataset.path = path;
  for (const [value, label] of options) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    sel.append(o);
  }
  sel.value = selected;
  return sel;
}

/** The values of an enum as choices: BY_NAME for LIST_ACCOUNTS_ORDER_BY_NAME. */
function enumEditor(e: DescEnum, init: JsonValue | undefined, path: string, explicit: boolean): Editor {
  // localName is the name without the enum's prefix: BY_NAME.
  const options: [string, string][] = e.values.map((v) => [v.name, `${v.localName} (${v.number})`]);
  if (explicit) options.unshift(["", "unset"]);
  const match = e.values.find((v) => v.name === init || v.number === init);
  const zero = e.values.find((v) => v.number === 0)?.name ?? "";
  const sel = select(path, options, match ? match.name : explicit ? "" : zero);
  return {
    el: sel,
    value() {
      if (sel.value === "") return undefined;
      if (!explicit && sel.value === zero) return undefined;
      return sel.value;
    },
  };
}

function jsonEditor(init: JsonValue | undefined, path: string, placeholder: string): Editor {
  const area = document.createElement("textarea");
  area.id = idOf(path);
  area.dataset.path = path;
  area.rows = 2;
  area.spellcheck = false;
  area.placeholder = placeholder;
  if (init !== undefined) area.value = JSON.stringify(init);
  return {
    el: area,
    value() {
      const s = area.value.trim();
      area.removeAttribute("aria-invalid");
      if (s === "") return undefined;
      try {
        return JSON.parse(s) as JsonValue;
      } catch {
        area.setAttribute("aria-invalid", "true");
        return undefined;
      }
    },
  };
}

/** A message field: well-known types as one control, others as a nested form opened by its "set" box. */
function messageFieldEditor(m: DescMessage, init: JsonValue | undefined, path: string): Editor {
  switch (m.typeName) {
    case "google.protobuf.Timestamp":
    case "google.protobuf.Duration":
    case "google.protobuf.FieldMask": {
      const input = document.createElement("input");
      input.type = "text";
      input.id = idOf(path);
      input.dataset.path = path;
      input.spellcheck = false;
      input.placeholder = m.typeName.endsWith("Timestamp") ? "2016-03-24T16:05:00Z" : m.typeName.endsWith("Duration") ? "1.5s" : "a,b.c";
      if (typeof init === "string") input.value = init;
      return { el: input, value: () => (input.value.trim() === "" ? undefined : input.value.trim()) };
    }
    case "google.protobuf.Value":
    case "google.protobuf.Struct":
    case "google.protobuf.ListValue":
      return jsonEditor(init, path, m.typeName.endsWith("Struct") ? "{}" : m.typeName.endsWith("ListValue") ? "[]" : "JSON");
  }
  if (m.typeName.startsWith("google.protobuf.") && m.typeName.endsWith("Value") && m.fields.length === 1 && m.fields[0].fieldKind === "scalar") {
    return scalarEditor(m.fields[0].scalar, init, path, true); // wrappers: the bare value, with presence
  }
  const wrap = document.createElement("div");
  wrap.className = "nested";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = idOf(path);
  box.dataset.path = path;
  box.dataset.presence = path;
  const boxLabel = document.createElement("label");
  boxLabel.className = "set";
  boxLabel.append(box, ` set ${m.name}`);
  wrap.append(boxLabel);
  let inner: Editor | undefined;
  const open = (v: JsonValue | undefined) => {
    inner = messageForm(m, isObject(v) ? v : {}, path);
    wrap.append(inner.el);
  };
  box.addEventListener("change", () => {
    if (box.checked && !inner) open(undefined);
    if (inner) inner.el.hidden = !box.checked;
  });
  if (init !== undefined && init !== null) {
    box.checked = true;
    open(init);
  }
  wrap.addEventListener("input", (ev) => {
    if (ev.target !== box) box.checked = true;
  });
  return { el: wrap, value: () => (box.checked && inner ? inner.value() : undefined) };
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A oneof: a choice of case, and the chosen case's control. */
function oneofEditor(o: DescOneof, init: JsonObject, path: string): Editor {
  const el = document.createElement("div");
  el.className = "field block oneof";
  const selPath = join(path, o.localName);
  const label = document.createElement("label");
  label.htmlFor = idOf(selPath);
  label.append(o.name, " ");
  const t = document.createElement("span");
  t.className = "type";
  t.textContent = "oneof";
  label.append(t);
  const initCase = o.fields.find((f) => pick(init, f) !== undefined);
  const sel = select(selPath, [["", "unset"], ...o.fields.map((f): [string, string] => [f.name, `${f.name}: ${typeLabel(f)}`])], initCase?.name ?? "");
  sel.dataset.oneof = selPath;
  const body = document.createElement("div");
  body.className = "case";
  el.append(label, sel, body);
  let current: { field: DescField; ed: Editor } | undefined;
  const show = (v: JsonValue | undefined) => {
    const field = o.fields.find((f) => f.name === sel.value);
    body.replaceChildren();
    current = undefined;
    if (!field) return;
    const fieldPath = join(path, field.jsonName);
    const ed = field.fieldKind === "message" && wellKnownZero(field.message) === undefined && !field.message.typeName.startsWith("google.protobuf.")
      ? messageForm(field.message, isObject(v) ? v : {}, fieldPath)
      : fieldEditor(field, v, fieldPath);
    body.append(field.fieldKind === "message" ? ed.el : row(field.name, typeLabel(field), ed.el, fieldPath, false));
    current = { field, ed };
  };
  show(initCase ? pick(init, initCase) : undefined);
  sel.addEventListener("change", () => {
    show(undefined);
    changed(el);
  });
  return {
    el,
    value() {
      if (!current) return undefined;
      return { [current.field.jsonName]: current.ed.value() ?? zeroOf(current.field) };
    },
  };
}

/** A repeated field: its items, each removable, and a button that adds one. */
function listEditor(f: DescField & { fieldKind: "list" }, init: JsonValue | undefined, path: string): Editor {
  const el = document.createElement("div");
  el.className = "list";
  el.id = idOf(path);
  el.dataset.path = path;
  const items = document.createElement("ol");
  const add = document.createElement("button");
  add.type = "button";
  add.className = "add";
  add.textContent = `+ ${f.name}`;
  el.append(items, add);
  const eds: Editor[] = [];
  const itemEditor = (v: JsonValue | undefined, p: string): Editor => {
    switch (f.listKind) {
      case "scalar":
        return scalarEditor(f.scalar, v, p, false);
      case "enum":
        return enumEditor(f.enum, v, p, false);
      case "message":
        return messageFieldEditor(f.message, v ?? {}, p);
    }
  };
  const addItem = (v: JsonValue | undefined): Editor => {
    const li = document.createElement("li");
    const ed = itemEditor(v, `${path}.${eds.length}`);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.textContent = "×";
    remove.title = "Remove this item";
    remove.setAttribute("aria-label", `remove ${f.name} item`);
    li.append(ed.el, remove);
    items.append(li);
    eds.push(ed);
    remove.addEventListener("click", () => {
      eds.splice(eds.indexOf(ed), 1);
      li.remove();
      add.focus();
      changed(el);
    });
    return ed;
  };
  if (Array.isArray(init)) for (const v of init) addItem(v);
  add.addEventListener("click", () => {
    const ed = addItem(undefined);
    ed.el.querySelector<HTMLElement>("input, select, textarea")?.focus();
    if (ed.el.matches("input, select, textarea")) ed.el.focus();
    changed(el);
  });
  return {
    el,
    value() {
      const vs = eds.map((ed) => ed.value() ?? zeroItem(f));
      return vs.length > 0 ? vs : undefined;
    },
  };
}

function zeroItem(f: DescField & { fieldKind: "list" }): JsonValue {
  if (f.listKind === "message") return {};
  if (f.listKind === "enum") return f.enum.values[0]?.name ?? 0;
  if (f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES) return "";
  if (f.scalar === ScalarType.BOOL) return false;
  return is64(f.scalar) ? "0" : 0;
}

/** The type of a field as the form shows it: "optional uint32", "repeated Account", "ListAccountsOrder". */
export function typeLabel(f: DescField): string {
  let t: string;
  switch (f.fieldKind) {
    case "scalar":
      t = ScalarType[f.scalar].toLowerCase();
      break;
    case "enum":
      t = f.enum.name;
      break;
    case "message":
      t = f.message.name;
      break;
    case "list":
      t = `repeated ${f.listKind === "scalar" ? ScalarType[f.scalar].toLowerCase() : f.listKind === "enum" ? f.enum.name : f.message.name}`;
      break;
    case "map":
      t = `map<${ScalarType[f.mapKey].toLowerCase()}, …>`;
      break;
  }
  return f.presence === 1 && (f.fieldKind === "scalar" || f.fieldKind === "enum") && !f.oneof ? `optional ${t}` : t;
}
