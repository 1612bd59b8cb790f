/**
 * The caption ribbon `narrate` shows the user. It lives outside the page's body (a child of the
 * root element), in a closed shadow root, hidden from assistive technology, and lets every
 * pointer event through, so it never takes a click and no reader (read_page, find,
 * get_page_text, which read from the body) ever reads it back. One caption at a time; a new one
 * replaces it, and each goes away on its own.
 *
 * @module
 */

import type { CaptionPosition } from "./contract.ts";

const TAG = "ghostlight-caption";

let shown: { host: Element; timer: number } | null = null;

/** Where `auto` puts the caption: away from the focused element, else at the bottom. */
function autoPosition(): CaptionPosition {
  const active = document.activeElement;
  if (!active || active === document.body) return "bottom";
  const rect = active.getBoundingClientRect();
  return rect.bottom > innerHeight * 0.7 ? "top" : "bottom";
}

const HOST_STYLE: Record<string, string> = {
  all: "initial",
  position: "fixed",
  left: "0",
  right: "0",
  "z-index": "2147483647",
  "pointer-events": "none",
  display: "flex",
  "justify-content": "center",
};

const RIBBON_STYLE = [
  "max-width: min(80vw, 48rem)",
  "margin: 0 1rem",
  "padding: 0.5rem 0.9rem",
  "border-radius: 0.5rem",
  "background: rgba(24, 24, 32, 0.88)",
  "color: #fff",
  "font: 500 15px/1.35 system-ui, sans-serif",
  "box-shadow: 0 2px 10px rgba(0, 0, 0, 0.35)",
  "pointer-events: none",
  "user-select: none",
  "white-space: pre-wrap",
].join("; ");

/** Removes the caption shown now, if any. */
function hideCaption(): void {
  if (!shown) return;
  clearTimeout(shown.timer);
  shown.host.remove();
  shown = null;
}

/** Shows `text` as the caption for `durationMs`; answers where it went. */
export function showCaption(
  text: string,
  options: { position: "auto" | CaptionPosition; durationMs: number },
): { position: CaptionPosition } {
  hideCaption();
  const position = options.position === "auto" ? autoPosition() : options.position;
  const host = document.createElement(TAG);
  for (const [name, value] of Object.entries(HOST_STYLE)) {
    host.style.setProperty(name, value, "important");
  }
  host.style.setProperty(position, "12px", "important");
  host.setAttribute("aria-hidden", "true");
  const root = host.attachShadow({ mode: "closed" });
  const ribbon = document.createElement("div");
  ribbon.setAttribute("style", RIBBON_STYLE);
  ribbon.textContent = text;
  root.append(ribbon);
  document.documentElement.append(host);
  shown = { host, timer: setTimeout(hideCaption, options.durationMs) };
  return { position };
}
