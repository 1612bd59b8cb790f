/**
 * Setting form fields the way a user's input reaches the page: the element's native setter
 * (frameworks wrap the instance's own), then the `beforeinput`, `input` and `change` events
 * they listen to. Checkboxes and radios are clicked, as a user would.
 *
 * @module
 */

import type { ByLabels, FieldFill, FillResult, LabelMatch, Refusal } from "./contract.ts";
import { checkedState, describe, isDisabled } from "./describe.ts";
import { viewOf } from "./dom.ts";
import { isVisible } from "./geometry.ts";
import { nameOf } from "./names.ts";
import { fillableFields, matchFields } from "../page/form_match.ts";
import { toBool } from "../page/on_off.ts";
import { byId, current, idOf, token } from "./registry.ts";
import { roleOf } from "./roles.ts";
import { fieldRedactor, isSecretField, secretValues } from "./secrets.ts";
import { snapshot } from "./snapshot.ts";
import { clean, clip, textOf } from "./text.ts";

/** A value put into a field: its kind, the element that took it, and whether it still holds it. */
interface Applied {
  kind: string;
  el: Element;
  /** Whether the field holds what was asked for (the page may have changed or refused it). */
  holds: () => boolean;
  /** Set when a radio group was given the label of the radio to choose. */
  chose?: boolean;
}

/**
 * The secret values a batch's messages are redacted with at its end, besides those of that
 * moment: the page's when the first message appeared, and what the batch's own secret fields
 * held when read back. A value the page or the batch replaced meanwhile is still hidden.
 */
interface Seen {
  values: string[];
  walked: boolean;
}

/** The setter of `prop` from the element's prototype chain, below any the page put on it. */
function nativeSetter(el: Element, prop: string): ((value: unknown) => void) | null {
  let proto = Object.getPrototypeOf(el);
  while (proto) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, prop);
    if (descriptor && descriptor.set) return descriptor.set;
    proto = Object.getPrototypeOf(proto);
  }
  return null;
}

/**
 * Dispatches an event made by the element's own window, bubbling. `input` and `beforeinput` leave
 * shadow trees, as the browser's own do; `change` stays inside its tree, as the browser's does.
 */
function fire(el: Element, type: string, init?: InputEventInit): void {
  const view = viewOf(el) as unknown as typeof globalThis;
  const editing = type === "input" || type === "beforeinput";
  const Ctor = editing ? view.InputEvent : view.Event;
  el.dispatchEvent(new Ctor(type, Object.assign({ bubbles: true, composed: editing }, init || {})));
}

/**
 * Focuses the field as a user reaching it would, scrolled to, when it is filled `alone`. A field
 * of a batch is not focused (decision 0206): focusing costs the browser more than the rest of the
 * fill (it looks the form over again for autofill), and its value and events do not depend on it.
 * `editing`: a contenteditable takes its text through the selection, so it is focused either way.
 */
function focusOn(el: HTMLElement, alone: boolean, editing = false): void {
  if (!alone && !editing) return;
  try {
    el.focus({ preventScroll: !alone });
  } catch {
    // Focus is a courtesy to the page; what follows is what sets the value.
  }
}

/** Checks a radio button, by click and failing that by its setter. */
function checkRadio(radio: HTMLInputElement, alone: boolean): void {
  focusOn(radio, alone);
  if (!radio.checked) radio.click();
  if (!radio.checked) {
    nativeSetter(radio, "checked")!.call(radio, true);
    fire(radio, "input");
    fire(radio, "change");
  }
}

/**
 * Chooses the radio in a group (or under an element) whose value or label is `value`; null when
 * there are no radios to choose from.
 */
function chooseRadio(el: Element, value: string, alone: boolean): Applied | Refusal | null {
  const isRadio = (el.getAttribute("type") || "").toLowerCase() === "radio";
  const scope = isRadio ? ((el as HTMLInputElement).form || el.getRootNode() as ParentNode) : el;
  const radios = Array.from(scope.querySelectorAll<HTMLInputElement>("input[type=radio]"))
    .filter((r) => !isRadio || r.name === (el as HTMLInputElement).name);
  if (!radios.length) return null;
  const wanted = clean(value).toLowerCase();
  const radio = radios.find((r) => r.value.toLowerCase() === wanted) ||
    radios.find((r) => nameOf(r, "radio").toLowerCase() === wanted) ||
    radios.find((r) => nameOf(r, "radio").toLowerCase().includes(wanted));
  if (!radio) {
    return {
      error: "no_option",
      options: radios.slice(0, 30).map((r) => ({ value: r.value, label: nameOf(r, "radio") })),
    };
  }
  checkRadio(radio, alone);
  return { kind: "radio", el: radio, holds: () => radio.checked, chose: true };
}

/** The option of a select whose value or label is `wanted`, if any. */
function optionFor(options: HTMLOptionElement[], wanted: string): HTMLOptionElement | undefined {
  return options.find((o) => o.value === wanted) ||
    options.find((o) => clean(o.label || o.text) === clean(wanted)) ||
    options.find((o) => clean(o.label || o.text).toLowerCase() === clean(wanted).toLowerCase());
}

/**
 * The values a `<select multiple>` is given as one string: a JSON array of strings or numbers
 * (form_input's value is one string, number or boolean). Null when `value` is not one.
 */
function valueList(value: string): string[] | null {
  if (!value.trim().startsWith("[")) return null;
  try {
    const list: unknown = JSON.parse(value);
    if (!Array.isArray(list)) return null;
    if (!list.every((item) => typeof item === "string" || typeof item === "number")) return null;
    return list.map(String);
  } catch {
    return null;
  }
}

/**
 * Selects the option of a select whose value or label is `value`; a `<select multiple>` given a
 * JSON array selects exactly those options (an option named like the whole string comes first).
 */
function choose(el: HTMLSelectElement, value: unknown, focus: () => void): Applied | Refusal {
  const wanted = String(value);
  const options = Array.from(el.options);
  const option = optionFor(options, wanted);
  const list = !option && el.multiple ? valueList(wanted) : null;
  const chosen = list ? list.map((item) => optionFor(options, item)) : [option];
  if (chosen.length === 0 || chosen.some((o) => o === undefined)) {
    return {
      error: "no_option",
      options: options.slice(0, 30).map((o) => ({
        value: o.value,
        label: clean(o.label || o.text),
      })),
      ...(el.multiple ? { multiple: true } : {}),
    };
  }
  const picked = chosen as HTMLOptionElement[];
  focus();
  if (list) {
    for (const o of options) o.selected = picked.includes(o);
  } else {
    nativeSetter(el, "value")!.call(el, picked[0].value);
    picked[0].selected = true;
  }
  fire(el, "input");
  fire(el, "change");
  return {
    kind: "select",
    el,
    holds: () => options.every((o) => o.selected === picked.includes(o) || !list && !o.selected),
  };
}

/** Text as lines, each with its spaces collapsed, so a line break counts and spacing does not. */
function lines(text: string | null): string {
  return (text || "").replace(/\r\n?/g, "\n").split("\n").map((line) => clean(line)).join("\n")
    .trim();
}

/** Whether a contenteditable shows `text`, line breaks included. */
function showsText(el: HTMLElement, text: string): boolean {
  return lines(el.innerText) === lines(text);
}

/**
 * Replaces a contenteditable's text, as typing over a selection of all of it would; each line
 * break of `text` is a line break in the field.
 */
function replaceEditable(el: HTMLElement, text: string): void {
  const doc = el.ownerDocument;
  const selection = doc.getSelection()!;
  const range = doc.createRange();
  range.selectNodeContents(el);
  selection.removeAllRanges();
  selection.addRange(range);
  let done = false;
  try {
    done = doc.execCommand("insertText", false, text);
  } catch {
    done = false;
  }
  if (!done || !showsText(el, text)) {
    el.replaceChildren();
    text.replace(/\r\n?/g, "\n").split("\n").forEach((line, index) => {
      if (index > 0) el.append(doc.createElement("br"));
      el.append(doc.createTextNode(line));
    });
    fire(el, "input", { inputType: "insertText", data: text });
  }
}

/** Turns a checkbox or radio input on or off, by click as a user would, else by its setter. */
function toggle(field: HTMLInputElement, value: unknown, alone: boolean): Applied | Refusal {
  const type = field.type;
  const want = toBool(value);
  if (want === null) return { error: "not_boolean", role: type };
  if (type === "radio" && !want) return { error: "radio_off" };
  focusOn(field, alone);
  // A box at mixed (`indeterminate`) is neither on nor off: a click leaves it one or the other.
  const holds = () => checkedState(field, type) === String(want);
  if (!holds()) {
    field.click();
    if (field.checked !== want) {
      nativeSetter(field, "checked")!.call(field, want);
      fire(field, "input");
      fire(field, "change");
    }
  }
  return { kind: type, el: field, holds };
}

/**
 * Turns an ARIA checkbox, switch or radio on or off by a click, as a user would; the page's own
 * handler sets its `aria-checked`. A checkbox at "mixed" is neither, so off is not already so.
 */
function toggleAria(el: HTMLElement, role: string, value: unknown): Applied | Refusal {
  const want = toBool(value);
  if (want === null) return { error: "not_boolean", role };
  const holds = () => checkedState(el, role) === String(want);
  if (!holds()) el.click();
  return { kind: role, el, holds };
}

/** Puts text into an input or textarea through its native setter and the events typing fires. */
function typeInto(field: HTMLInputElement, text: string, focus: () => void): Applied {
  focus();
  const setter = nativeSetter(field, "value")!;
  fire(field, "beforeinput", { inputType: "insertReplacementText", data: text, cancelable: true });
  setter.call(field, text);
  fire(field, "input", { inputType: "insertReplacementText", data: text });
  fire(field, "change");
  return {
    kind: field.tagName === "TEXTAREA" ? "textarea" : "text",
    el: field,
    holds: () => field.value === text,
  };
}

/** Whether the element takes typed text: a text-like input, a textarea or a contenteditable. */
function takesText(el: Element): boolean {
  const type = (el.getAttribute("type") || "text").toLowerCase();
  if (el.tagName === "TEXTAREA") return true;
  if (el.tagName === "INPUT") return !NOT_TEXT.includes(type);
  return (el as HTMLElement).isContentEditable;
}

/** Input types that take no typed text. */
const NOT_TEXT = [
  "checkbox",
  "radio",
  "file",
  "submit",
  "button",
  "reset",
  "image",
  "hidden",
  "range",
  "color",
];

/**
 * Whether the user can see the field, or a label of a checkbox or radio (a styled one shows only
 * its label, and a click on the label sets it).
 */
function canBeSeen(el: Element): boolean {
  if (isVisible(el)) return true;
  const type = (el.getAttribute("type") || "").toLowerCase();
  if (el.tagName !== "INPUT" || (type !== "checkbox" && type !== "radio")) return false;
  const labels = (el as HTMLInputElement).labels;
  return labels ? Array.from(labels).some((label) => isVisible(label)) : false;
}

/**
 * Puts `value` into the field with this number: text, a select's option (by value or label), a
 * checkbox or switch (on or off), a radio group's choice, or a contenteditable's text.
 */
function apply(id: number, value: unknown, alone: boolean): Applied | Refusal {
  // A document no longer shown is the frame's end, not the field's: it throws, as a world that
  // lost its runtime does, and the service forgets the frame (FrameGone). "gone" is the field's.
  if (!current()) throw new Error("__ghostlight: the document is no longer shown");
  const el = byId(id);
  if (!el) return { error: "gone" };
  const tag = el.tagName;
  const type = (el.getAttribute("type") || "").toLowerCase();
  const role = roleOf(el);
  const html = el as HTMLElement;
  const field = el as HTMLInputElement;
  if (isDisabled(el)) {
    // A field disabled by the group around it, not by itself (the page enables the group).
    const byGroup = !el.hasAttribute("disabled") && el.getAttribute("aria-disabled") !== "true" &&
      el.closest("fieldset:disabled") !== null;
    return { error: byGroup ? "fieldset_disabled" : "disabled" };
  }
  if (field.readOnly && (tag === "INPUT" || tag === "TEXTAREA")) return { error: "readonly" };
  // A text field no one can see is not filled: hidden fields are how pages catch bots
  // (honeypots), and one hidden since it was read is no longer the field meant (decision 0420).
  if (!isVisible(el) && takesText(el)) return { error: "hidden" };
  const focus = () => focusOn(html, alone);
  const choice = typeof value === "string" && toBool(value) === null;
  if (
    choice &&
    (type === "radio" ||
      !(tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || html.isContentEditable))
  ) {
    // A radio group (or one of its radios) given the label or value of the radio to choose.
    const chosen = chooseRadio(el, value as string, alone);
    if (chosen) return chosen;
  }
  if (tag === "INPUT" && (type === "checkbox" || type === "radio")) {
    return toggle(field, value, alone);
  }
  if (role === "checkbox" || role === "switch" || role === "radio") {
    return toggleAria(html, role, value);
  }
  if (tag === "SELECT") return choose(el as HTMLSelectElement, value, focus);
  if (tag === "INPUT" || tag === "TEXTAREA") {
    if (["file", "submit", "button", "reset", "image", "hidden"].includes(type)) {
      return { error: "not_settable", type };
    }
    return typeInto(field, String(value), focus);
  }
  if (html.isContentEditable) {
    focusOn(html, alone, true);
    const text = String(value);
    replaceEditable(html, text);
    return { kind: "contenteditable", el, holds: () => showsText(html, text) };
  }
  return { error: "not_a_field", role: role || el.tagName.toLowerCase() };
}

/** Microtask turns given to the page's handlers before the field is read back. */
const HANDLER_TURNS = 3;

/**
 * Lets the page's own reaction to the events run before the field is read back: frameworks
 * (React's discrete updates, Vue's and Svelte's schedulers) re-render in microtasks queued by
 * the events, which run before these. No timer: nothing else of the page can run meanwhile.
 */
async function handlerTurns(): Promise<void> {
  for (let turn = 0; turn < HANDLER_TURNS; turn++) await Promise.resolve();
}

/** Longest validation message passed on, after redaction. */
export const MAX_INVALID_CHARS = 160;

/**
 * The page's verdict on the field's value: its message, unredacted, when it marks it invalid.
 */
export function invalidity(el: Element): string | undefined {
  const field = el as HTMLInputElement;
  if (field.willValidate && field.validity && !field.validity.valid) {
    return field.validationMessage || "";
  }
  if (el.getAttribute("aria-invalid") !== "true") return undefined;
  const id = el.getAttribute("aria-errormessage");
  const message = id ? el.ownerDocument.getElementById(id) : null;
  return message ? textOf(message, 200) : "";
}

/**
 * The field as it reads after the page reacted: what it holds and what the page says of it, and
 * where it is (and the page's URL) when `alone`.
 */
function readBack(applied: Applied, alone: boolean, seen: Seen): FieldFill {
  const id = idOf(applied.el);
  const after = describe(id, alone);
  const invalid = invalidity(applied.el);
  const secret = isSecretField(applied.el);
  if (invalid && !seen.walked) {
    seen.values.push(...secretValues());
    seen.walked = true;
  }
  if (secret) seen.values.push((applied.el as HTMLInputElement).value);
  return {
    kind: applied.kind,
    after,
    kept: applied.holds(),
    ...(secret ? { secret: true } : {}),
    ...(invalid !== undefined ? { invalid } : {}),
    ...(applied.chose ? { chose: id } : {}),
    ...(alone && globalThis.top === globalThis.window ? { url: location.href } : {}),
  };
}

/**
 * The fills with the page's messages redacted and clipped (after redaction, so no part of a
 * secret is left). A batch walks the page for secret values twice at most, when its first message
 * appears and at its end, instead of once per message; none when no field has a message.
 */
function redactMessages(results: FillResult[], seen: Seen): FillResult[] {
  let redact: ((text: string) => string) | null = null;
  return results.map((result) => {
    if ("error" in result || !result.invalid) return result;
    redact ??= fieldRedactor(seen.values);
    return { ...result, invalid: clip(redact(result.invalid), MAX_INVALID_CHARS) };
  });
}

/** Fills one field and reads it back once the page's handlers ran; its message unredacted. */
async function fillOne(
  id: number,
  value: unknown,
  alone: boolean,
  seen: Seen,
): Promise<FillResult> {
  const leaving = alone ? watchLeaving() : null;
  try {
    const applied = apply(id, value, alone);
    if ("error" in applied) return applied;
    const unseen = !canBeSeen(applied.el);
    await handlerTurns();
    const result = readBack(applied, alone, seen);
    const left = leaving?.to();
    return {
      ...result,
      ...(unseen ? { unseen: true } : {}),
      ...(left !== undefined ? { leaving: left } : {}),
    };
  } finally {
    leaving?.stop();
  }
}

/**
 * Watches the top window for a navigation to another document that the fill's events start (a
 * handler that sets `location`): the Navigation API's `navigate` event fires as it begins, in
 * the handler's own turn. `to` answers where it goes, or undefined when none began.
 */
function watchLeaving(): { to(): string | undefined; stop(): void } {
  const nav = (globalThis.top === globalThis.window &&
    (globalThis as { navigation?: EventTarget }).navigation) || null;
  let to: string | undefined;
  const heard = (event: Event) => {
    const navigate = event as Event & {
      destination?: { url: string; sameDocument: boolean };
      downloadRequest?: string | null;
    };
    const destination = navigate.destination;
    // A download leaves the page where it is.
    if (destination && !destination.sameDocument && typeof navigate.downloadRequest !== "string") {
      to = destination.url;
    }
  };
  nav?.addEventListener("navigate", heard);
  return { to: () => to, stop: () => nav?.removeEventListener("navigate", heard) };
}

/**
 * Fills the field with this number and reads it back once the page's handlers ran: what it
 * holds, whether that is what was asked for, and whether the page calls it invalid. A field
 * filled `alone` is focused and scrolled to, and its box measured; one of a batch is none of
 * these (the page would jump from field to field, and each focus and box makes the browser work
 * the page over again).
 */
export async function fill(id: number, value: unknown, alone = true): Promise<FillResult> {
  const seen: Seen = { values: [], walked: false };
  return redactMessages([await fillOne(id, value, alone, seen)], seen)[0];
}

/**
 * Longest one field's fill may hold the page before the rest are given up: a JavaScript dialog
 * a handler opened holds it until someone answers, which no agent does this fast, so fields
 * after the one that opened it are never set once the dialog is answered.
 */
const HELD_MS = 500;

/**
 * Fills fields in order, each read back before the next is set, so a field the previous one
 * enables or fills with options is ready. No further field is started once one held the page
 * over {@linkcode HELD_MS} (a dialog, a handler that blocks) or the fields took `budgetMs`.
 */
export async function fillMany(
  fields: [id: number, value: unknown][],
  budgetMs: number,
): Promise<FillResult[]> {
  const started = performance.now();
  let last = started;
  let held = false;
  const seen: Seen = { values: [], walked: false };
  const results: FillResult[] = [];
  for (const [id, value] of fields) {
    const now = performance.now();
    held = held || now - last > HELD_MS || now - started > budgetMs;
    last = now;
    results.push(held ? { error: "held" } : await fillOne(id, value, false, seen));
  }
  return redactMessages(results, seen);
}

/**
 * `form_fill` in one evaluation for a page without frames of its own (decision 0220): walks the
 * document as the outline read does, matches the labels with the service's own matching
 * (`page/form_match.ts`), then fills the matched fields as {@linkcode fillMany}. Sets nothing
 * when the registry is not the one with `expected` as token, or when a frame would need its own
 * world to be read: the service then takes its outline-first path.
 */
export async function fillByLabels(
  expected: string,
  labels: string[],
  values: unknown[],
  limit: number,
  budgetMs: number,
): Promise<ByLabels> {
  if (token !== expected || !current()) return { stale: true };
  const walk = snapshot({ filter: "all", hints: true, limit });
  if ("gone" in walk) return { stale: true };
  if (walk.frames.length > 0) return { framed: true };
  const nodes = walk.nodes.map((node) => ({
    ...node,
    ref: node.id && node.role !== "text" ? String(node.id) : undefined,
  }));
  const jobs: [id: number, value: unknown][] = [];
  const matches = matchFields(labels, fillableFields(nodes)).map((match, index): LabelMatch => {
    if ("field" in match) {
      jobs.push([match.field.node.id, values[index]]);
      return { id: match.field.node.id };
    }
    if (match.unmatched === "none") return { unmatched: "none" };
    return {
      unmatched: "ambiguous",
      candidates: match.candidates.map(({ id, role, name }) => ({ id, role, name })),
    };
  });
  return { url: walk.url, matches, results: await fillMany(jobs, budgetMs) };
}

/** A button that submits its form, as a user would find it. */
function isSubmitButton(el: Element): boolean {
  const type = (el.getAttribute("type") || "").toLowerCase();
  if (el.tagName === "BUTTON") return type === "" || type === "submit";
  return el.tagName === "INPUT" && (type === "submit" || type === "image");
}

/**
 * The number of the control that submits the form the field with this number belongs to: its
 * first enabled, visible submit button. Null when the field is in no form or the form has none.
 */
export function submitControl(id: number): number | null {
  const el = byId(id);
  if (!el) return null;
  const form = (el as HTMLInputElement).form || el.closest("form");
  if (!form) return null;
  const button = Array.from(form.elements).find((control) =>
    isSubmitButton(control) && !isDisabled(control) && control.getClientRects().length > 0
  );
  return button ? idOf(button) : null;
}
