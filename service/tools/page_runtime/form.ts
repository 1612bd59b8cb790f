/**
 * Setting form fields the way a user's input reaches the page: the element's native setter
 * (frameworks wrap the instance's own), then the `beforeinput`, `input` and `change` events
 * they listen to. Checkboxes and radios are clicked, as a user would.
 *
 * @module
 */

import { describe, type Described, isDisabled } from "./describe.ts";
import { viewOf } from "./dom.ts";
import { nameOf } from "./names.ts";
import { byId, idOf } from "./registry.ts";
import { roleOf } from "./roles.ts";
import { clean } from "./text.ts";

/** What setting a field did, or why it could not. */
export type SetResult =
  | { kind: string; after: Described | null; actual?: boolean; chose?: number }
  | { error: "gone" | "disabled" | "readonly" | "radio_off" }
  | { error: "no_option"; options: { value: string; label: string }[] }
  | { error: "not_settable"; type: string }
  | { error: "not_a_field"; role: string }
  | { error: "not_boolean"; role: string };

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

/** Dispatches an event made by the element's own window, bubbling out of shadow trees. */
function fire(el: Element, type: string, init?: InputEventInit): void {
  const view = viewOf(el) as unknown as typeof globalThis;
  const Ctor = type === "input" || type === "beforeinput" ? view.InputEvent : view.Event;
  el.dispatchEvent(new Ctor(type, Object.assign({ bubbles: true, composed: true }, init || {})));
}

/** The value read as on or off, or null when it is neither. */
function toBool(value: unknown): boolean | null {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  const text = String(value).trim().toLowerCase();
  if (["true", "on", "yes", "y", "checked", "1"].includes(text)) return true;
  if (["false", "off", "no", "n", "unchecked", "0", ""].includes(text)) return false;
  return null;
}

/** Checks a radio button, by click and failing that by its setter. */
function checkRadio(radio: HTMLInputElement): void {
  try {
    radio.focus();
  } catch {
    // Focus is a courtesy to the page; the click below is what sets the radio.
  }
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
function chooseRadio(el: Element, value: string): SetResult | null {
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
  checkRadio(radio);
  return { kind: "radio", chose: idOf(radio), after: describe(idOf(radio)) };
}

/** Selects the option of a select whose value or label is `value`. */
function choose(id: number, el: HTMLSelectElement, value: unknown, focus: () => void): SetResult {
  const wanted = String(value);
  const options = Array.from(el.options);
  const option = options.find((o) => o.value === wanted) ||
    options.find((o) => clean(o.label || o.text) === clean(wanted)) ||
    options.find((o) => clean(o.label || o.text).toLowerCase() === clean(wanted).toLowerCase());
  if (!option) {
    return {
      error: "no_option",
      options: options.slice(0, 30).map((o) => ({
        value: o.value,
        label: clean(o.label || o.text),
      })),
    };
  }
  focus();
  nativeSetter(el, "value")!.call(el, option.value);
  option.selected = true;
  fire(el, "input");
  fire(el, "change");
  return { kind: "select", after: describe(id) };
}

/** Replaces a contenteditable's text, as typing over a selection of all of it would. */
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
  if (!done || clean(el.textContent) !== clean(text)) {
    el.textContent = text;
    fire(el, "input", { inputType: "insertText", data: text });
  }
}

/**
 * Sets the field with this number to `value`: text, a select's option (by value or label), a
 * checkbox or switch (on or off), a radio group's choice, or a contenteditable's text.
 */
export function setValue(id: number, value: unknown): SetResult {
  const el = byId(id);
  if (!el) return { error: "gone" };
  const tag = el.tagName;
  const type = (el.getAttribute("type") || "").toLowerCase();
  const role = roleOf(el);
  const html = el as HTMLElement;
  const field = el as HTMLInputElement;
  if (isDisabled(el)) return { error: "disabled" };
  if (field.readOnly && (tag === "INPUT" || tag === "TEXTAREA")) return { error: "readonly" };
  const focus = () => {
    try {
      html.focus({ preventScroll: false });
    } catch {
      // As in checkRadio: setting the value does not depend on focus.
    }
  };
  const choice = typeof value === "string" && toBool(value) === null;
  if (
    choice &&
    (type === "radio" ||
      !(tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || html.isContentEditable))
  ) {
    // A radio group (or one of its radios) given the label or value of the radio to choose.
    const chosen = chooseRadio(el, value as string);
    if (chosen) return chosen;
  }
  if (tag === "INPUT" && (type === "checkbox" || type === "radio")) {
    const want = toBool(value);
    if (want === null) return { error: "not_boolean", role: type };
    if (type === "radio" && !want) return { error: "radio_off" };
    focus();
    if (field.checked !== want) {
      field.click();
      if (field.checked !== want) {
        nativeSetter(el, "checked")!.call(el, want);
        fire(el, "input");
        fire(el, "change");
      }
    }
    return { kind: type, after: describe(id) };
  }
  if (role === "checkbox" || role === "switch" || role === "radio") {
    const want = toBool(value);
    if (want === null) return { error: "not_boolean", role };
    const current = el.getAttribute("aria-checked") === "true";
    if (current !== want) html.click();
    return { kind: role, after: describe(id) };
  }
  if (tag === "SELECT") return choose(id, el as HTMLSelectElement, value, focus);
  if (tag === "INPUT" || tag === "TEXTAREA") {
    if (["file", "submit", "button", "reset", "image", "hidden"].includes(type)) {
      return { error: "not_settable", type };
    }
    const text = String(value);
    focus();
    const setter = nativeSetter(el, "value")!;
    fire(el, "beforeinput", { inputType: "insertReplacementText", data: text, cancelable: true });
    setter.call(el, text);
    fire(el, "input", { inputType: "insertReplacementText", data: text });
    fire(el, "change");
    return {
      kind: tag === "TEXTAREA" ? "textarea" : "text",
      after: describe(id),
      actual: field.value === text,
    };
  }
  if (html.isContentEditable) {
    focus();
    replaceEditable(html, String(value));
    return { kind: "contenteditable", after: describe(id) };
  }
  return { error: "not_a_field", role: role || el.tagName.toLowerCase() };
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
