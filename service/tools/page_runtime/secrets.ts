/**
 * The one rule for which fields hold secrets (passwords, one-time codes, card codes, tokens),
 * and the redaction of their values from text before it leaves the page. Everything the runtime
 * reports about a field goes through {@linkcode isSecretField}.
 *
 * @module
 */

import { REDACTED } from "./contract.ts";
import { digestOf, type SecretDigest } from "../page/secret_digest.ts";
import { frameDocument, shadowOf } from "./dom.ts";
import { bindToDocument } from "./registry.ts";

/** Names, ids and autocomplete tokens of fields whose values are secret. */
const SECRET_FIELD =
  /pass(word|wd|code)?|secret|token|otp|one-time|cvv|cvc|csc|security.?code|api.?key|\bpin\b|cc-num|card.?number/i;

/**
 * Fields that have been secret once stay secret (decision 0282): a page's show-password toggle
 * makes a password field `type="text"`, and its value is no less secret for it.
 */
const wasSecret = new WeakSet<Element>();

/** Most values remembered, and most fields followed, for values changed or cleared since. */
const REMEMBERED_MAX = 64;
/**
 * Values secret fields held in this document, oldest first: what a read found in them and what
 * they held when committed (`change`), since a page may clear a code it has sent.
 */
const remembered = new Set<string>();
/**
 * What each secret field last held as it was typed into (`input`): the whole value, not each
 * prefix on the way to it, which would hide ordinary words that begin the same.
 */
const lastHeld = new Map<Element, string>();

/** Adds to a bounded insertion-ordered collection, dropping the oldest entry when full. */
function keep<K>(kept: Set<K> | Map<K, string>, key: K, value?: string): void {
  kept.delete(key);
  if (kept.size >= REMEMBERED_MAX) {
    const oldest = kept.keys().next();
    if (!oldest.done) kept.delete(oldest.value);
  }
  if (kept instanceof Map) kept.set(key, value ?? "");
  else kept.add(key);
}

function remember(value: string): void {
  if (value !== "") keep(remembered, value);
}

/** Whether the element is a field whose value is secret, or has ever been one. */
export function isSecretField(el: Element): boolean {
  if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") return false;
  if (wasSecret.has(el)) return true;
  const hints = [el.getAttribute("autocomplete"), el.getAttribute("name"), el.id].filter(Boolean)
    .join(" ");
  const secret = (el.getAttribute("type") || "").toLowerCase() === "password" ||
    SECRET_FIELD.test(hints);
  if (secret) wasSecret.add(el);
  return secret;
}

/**
 * Keeps the secret rule's memory from the document's start (the runtime is installed before the
 * page's scripts run; in a window that took another document, from when the runtime follows it):
 * a field whose `type` leaves `password` is marked, and every value typed
 * or set into a secret field is remembered, so a value the page logs or sends and then clears is
 * still recognised in its console lines and request URLs.
 */
export function watchSecrets(): void {
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      if ((record.oldValue || "").toLowerCase() === "password") {
        wasSecret.add(record.target as Element);
      }
    }
  });
  bindToDocument(() => {
    observer.disconnect();
    observer.observe(document, {
      subtree: true,
      attributes: true,
      attributeFilter: ["type"],
      attributeOldValue: true,
    });
  });
  const heard = (event: Event) => {
    const field = event.composedPath()[0];
    if (!(field instanceof Element) || !isSecretField(field)) return;
    const value = (field as HTMLInputElement).value;
    if (event.type === "change") remember(value);
    else if (value !== "") keep(lastHeld, field, value);
  };
  addEventListener("input", heard, true);
  addEventListener("change", heard, true);
}

/**
 * The values of the secret fields in the page, its shadow roots and same-origin frames. Each
 * root's elements are visited once, by a tree walker: finding the shadow hosts visits every
 * element anyway, and stepping a `querySelectorAll("*")` list with `for…of` is a call into the
 * browser per step, several times slower. With the fields' own query as a second walk, the tab
 * list on a page of 48,000 elements took 36–37 ms, now 16–18 (decision 0230).
 */
export function secretValues(): string[] {
  const found = new Set<string>();
  const visit = (root: Document | ShadowRoot, depth: number): void => {
    const walker = (root.ownerDocument ?? root as Document).createTreeWalker(
      root,
      NodeFilter.SHOW_ELEMENT,
    );
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node as Element;
      // Each property read is a call into the browser, and every element is read.
      const tag = el.tagName;
      if (tag === "IFRAME" || tag === "FRAME") {
        const doc = frameDocument(el);
        if (doc && depth < 4) visit(doc, depth + 1);
      } else if (
        (tag === "INPUT" || tag === "TEXTAREA") && isSecretField(el) &&
        (el as HTMLInputElement).value && found.size < 200
      ) {
        found.add((el as HTMLInputElement).value);
      }
      const shadow = shadowOf(el, tag);
      if (shadow) visit(shadow, depth);
    }
  };
  visit(document, 0);
  for (const value of found) remember(value);
  return Array.from(new Set([...found, ...remembered, ...lastHeld.values()]));
}

/**
 * What {@linkcode redactFields} would replace, as digests (see `secret_digest.ts`): the service
 * can then redact a result the page could not, and the values stay here.
 */
export function secretDigests(base: number, moduli: readonly [number, number]): SecretDigest[] {
  const out: SecretDigest[] = [];
  for (const value of secretValues()) {
    const [h1, h2] = digestOf(value, base, moduli);
    out.push({ length: value.length, h1, h2, match: "whole" });
    const run = value.length >= 4 ? value : JSON.stringify(value);
    const [r1, r2] = digestOf(run, base, moduli);
    out.push({ length: run.length, h1: r1, h2: r2, match: value.length >= 4 ? "run" : "quoted" });
  }
  return out;
}

/** The agent's script's result with the page's secret field values replaced; the page's URL. */
export function redactResult(text: string): { text: string; url: string } {
  return { text: redactFields(text), url: location.href };
}

/**
 * The text with the values of the page's secret fields replaced, so those values never leave
 * the page. A value of fewer than 4 characters is replaced only where it stands alone (the whole
 * text, or a quoted string), since replacing it everywhere would eat ordinary words.
 */
export function redactFields(text: string): string {
  // No text hides nothing: spare the walk (an untitled page, an empty message).
  if (text === "") return text;
  return fieldRedactor()(text);
}

/**
 * {@linkcode redactFields} for many texts with one walk of the page: the secret values as they
 * are now, plus `also` (values a caller saw in secret fields earlier, which the page may have
 * changed since).
 */
export function fieldRedactor(also: readonly string[] = []): (text: string) => string {
  const values = [...new Set([...secretValues(), ...also.filter(Boolean)])]
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const value of values) {
      if (out === value) return REDACTED;
      if (value.length >= 4) out = out.split(value).join(REDACTED);
      else out = out.split(JSON.stringify(value)).join(`"${REDACTED}"`);
    }
    return out;
  };
}

/**
 * The document's title with the page's secret field values hidden: a page may copy a one-time
 * code into its title, and every reader of the title (page facts, outline, text, receipts) uses
 * this one.
 */
export function redactedTitle(): string {
  return redactFields(String(document.title || ""));
}
