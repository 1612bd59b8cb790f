/**
 * What the popup and the side panel both build their pages with.
 *
 * @module
 */

/** An element with classes and text (never markup: a page's words stay text). */
export function element(tag: string, className = "", text = ""): HTMLElement {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text) made.textContent = text;
  return made;
}
