/**
 * The one element describer: role, name, value (secret fields redacted), states and whether the
 * element is enabled. read_page and find (through the outline), refs, form_input and receipts
 * all describe elements with it, so they agree on what an element is and what stays hidden.
 *
 * @module
 */

import type { Described, ReceiptElement } from "./contract.ts";
import { REDACTED, shownRole } from "./contract.ts";
import { box } from "./geometry.ts";
import { nameOf } from "./names.ts";
import { byId } from "./registry.ts";
import { roleOf } from "./roles.ts";
import { isSecretField } from "./secrets.ts";
import { clean, clip, textOf } from "./text.ts";

/** Properties only some kinds of element have; undefined on the rest. */
type Probe = Element & {
  checked?: boolean;
  indeterminate?: boolean;
  selected?: boolean;
  open?: boolean;
  required?: boolean;
  readOnly?: boolean;
  value?: unknown;
};

/**
 * The element's value as the user sees it: what a field holds, a select's chosen options, a
 * widget's current value. A secret field's value is {@linkcode REDACTED}; null when the element
 * has no value. A walk that has read the element's `tagName` passes it.
 */
export function valueOf(el: Element, role: string | null, tag = el.tagName): string | null {
  let value: string | null = null;
  if (tag === "INPUT") {
    const input = el as HTMLInputElement;
    const type = (el.getAttribute("type") || "text").toLowerCase();
    if (["checkbox", "radio", "submit", "reset", "button", "image", "hidden"].includes(type)) {
      return null;
    }
    if (type === "file") value = Array.from(input.files || []).map((f) => f.name).join(", ");
    else value = input.value;
  } else if (tag === "TEXTAREA") value = (el as HTMLTextAreaElement).value;
  else if (tag === "SELECT") {
    value = Array.from((el as HTMLSelectElement).selectedOptions).map((o) =>
      clean(o.label || o.text)
    ).join(", ");
  } else if (role === "textbox" && (el as HTMLElement).isContentEditable) value = textOf(el, 400);
  else if (
    role === "slider" || role === "spinbutton" || role === "progressbar" || role === "meter"
  ) {
    const own = (el as Probe).value;
    value = el.getAttribute("aria-valuenow") || (own !== undefined ? String(own) : null);
  } else if (role === "combobox" || role === "textbox" || role === "searchbox") {
    value = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") ||
      textOf(el, 200);
  }
  if (value === null || value === "") return value;
  if (isSecretField(el)) return REDACTED;
  return value;
}

/**
 * Whether the element is disabled; `:disabled` also covers controls in a disabled fieldset. A
 * walk passes the `tagName` it read, and `attributed` false for an element without attributes.
 */
export function isDisabled(el: Element, tag = el.tagName, attributed = true): boolean {
  const disableable = CAN_BE_DISABLED.has(tag) || tag.includes("-");
  return (disableable && el.matches(":disabled")) ||
    (attributed && el.getAttribute("aria-disabled") === "true");
}

/**
 * The elements `:disabled` can match (form-associated custom elements aside, told by the hyphen
 * in their names): a walk of thousands of cells need not ask the selector engine about each.
 */
const CAN_BE_DISABLED: ReadonlySet<string> = new Set([
  "BUTTON",
  "INPUT",
  "SELECT",
  "TEXTAREA",
  "OPTGROUP",
  "OPTION",
  "FIELDSET",
]);

/**
 * A checkable element's state. A native checkbox or radio says it by `checked`, and a checkbox
 * shows mixed by `indeterminate` (a radio shows nothing for it); any other element by
 * `aria-checked`, where "mixed" counts on a checkbox or menuitemcheckbox only: ARIA has it read
 * as false on a radio or switch.
 */
export function checkedState(el: Element, role: string | null): "true" | "false" | "mixed" {
  const probe = el as Probe;
  const type = (el.getAttribute("type") || "").toLowerCase();
  if (el.tagName === "INPUT" && (type === "checkbox" || type === "radio")) {
    if (probe.indeterminate && type === "checkbox") return "mixed";
    return probe.checked ? "true" : "false";
  }
  const state = el.getAttribute("aria-checked");
  if (state === "true") return "true";
  return state === "mixed" && (role === "checkbox" || role === "menuitemcheckbox")
    ? "mixed"
    : "false";
}

/**
 * The element's states as words: `checked`, `expanded`, `disabled`, `level=2`, ... A walk that
 * has read the element's `tagName` and asked `hasAttributes()` passes both (decision 0800).
 */
export function stateOf(
  el: Element,
  role: string | null,
  tag = el.tagName,
  // An element with no attributes (most cells and rows) has no aria state to look up.
  attributed = el.hasAttributes(),
): string[] {
  const probe = el as Probe;
  const flags: string[] = [];
  const aria = (name: string) => attributed ? el.getAttribute("aria-" + name) : null;
  if (role === "heading") {
    const level = aria("level") || (/^H(\d)$/.exec(tag) || [])[1];
    if (level) flags.push("level=" + level);
  }
  const checkable = role === "checkbox" || role === "radio" || role === "switch" ||
    role === "menuitemcheckbox" || role === "menuitemradio";
  if (checkable) {
    const state = checkedState(el, role);
    flags.push(state === "true" ? "checked" : state === "mixed" ? "mixed" : "unchecked");
  }
  if (role === "option" && (probe.selected || aria("selected") === "true")) flags.push("selected");
  if (aria("selected") === "true" && role !== "option") flags.push("selected");
  if (aria("pressed") === "true") flags.push("pressed");
  // A modal dialog makes the rest of the page inert: act inside it first.
  if (
    (role === "dialog" || role === "alertdialog") &&
    (aria("modal") === "true" || el.matches(":modal"))
  ) flags.push("modal");
  const expanded = aria("expanded");
  if (expanded === "true" || (tag === "DETAILS" && probe.open)) flags.push("expanded");
  else if (expanded === "false" || tag === "DETAILS") flags.push("collapsed");
  if (isDisabled(el, tag, attributed)) flags.push("disabled");
  if (probe.required || aria("required") === "true") flags.push("required");
  if (probe.readOnly && (tag === "INPUT" || tag === "TEXTAREA")) {
    flags.push("readonly");
  }
  if (aria("invalid") === "true") flags.push("invalid");
  if (tag === "INPUT") {
    const type = (el.getAttribute("type") || "text").toLowerCase();
    if (!["text", "checkbox", "radio", "submit", "button", "reset"].includes(type)) {
      flags.push("type=" + type);
    }
  }
  const current = aria("current");
  if (current && current !== "false") flags.push("current");
  return flags;
}

/**
 * The element behind a ref: what it is, what it holds, and where it is (`where: false` leaves
 * the box out, for callers that do not show it: measuring it makes the browser lay the page out).
 */
export function describe(id: number, where = true): Described | null {
  const el = byId(id);
  if (!el) return null;
  const role = roleOf(el) || "generic";
  const value = valueOf(el, role);
  const states = stateOf(el, role);
  return {
    role: shownRole(role),
    name: clip(nameOf(el, role), 200),
    ...(value !== null ? { value: clip(value, 200) } : {}),
    ...(states.length ? { states } : {}),
    enabled: !isDisabled(el),
    box: where ? box(id) : null,
  };
}

/** What a receipt names for an element the action met: the control it belongs to. */
const CONTROL =
  "a[href],button,input,select,textarea,label,summary,[role],[contenteditable=''],[contenteditable=true],[onclick],[tabindex]";

/**
 * An element an action met (at its point, focused, or changed) as a receipt names it: the
 * control it is part of, described as read_page would, shorter. An element without a role goes
 * by its tag, and one without a name of its own (a paragraph) by its text.
 */
export function receiptElement(el: Element | null): ReceiptElement | null {
  if (!el || el.nodeType !== 1) return null;
  const pick = el.closest(CONTROL) || el;
  const tag = pick.tagName.toLowerCase();
  const role = roleOf(pick);
  const field = tag === "input" || tag === "textarea" || tag === "select";
  const name = nameOf(pick, role) || (field ? "" : textOf(pick, 400));
  const out: ReceiptElement = { role: role ? shownRole(role) : tag, name: clip(name, 80), tag };
  if (isDisabled(pick)) out.disabled = true;
  const value = valueOf(pick, role);
  if (value !== null) out.value = clip(value, 120);
  return out;
}
