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

/**
 * Shows `next` as the children of `into`, keeping what is already there wherever it still
 * holds: a child with the same key (`keyOf`) is updated in place rather than replaced, and
 * within it every element of the same tag stays the same element, its text and attributes
 * brought up to date. The page refreshes every second, and a press whose button was replaced
 * between mousedown and mouseup is no click at all: the person's click would be lost. A button
 * is kept only when it is exactly the same button (words and data alike), so a press never
 * lands on a button that changed its meaning under the pointer; it is replaced, and that press
 * does nothing.
 */
export function showChildren(
  into: Element,
  next: readonly HTMLElement[],
  keyOf: (el: HTMLElement) => string | undefined,
): void {
  const kept = new Map<string, HTMLElement>();
  for (const child of [...into.children]) {
    const key = child instanceof HTMLElement ? keyOf(child) : undefined;
    const match = key === undefined
      ? undefined
      : next.find((el) => el.tagName === child.tagName && keyOf(el) === key);
    if (match) kept.set(key!, child as HTMLElement);
    // Whatever is not kept goes first, so that what is kept never moves while it is pressed.
    else child.remove();
  }
  for (const node of [...into.childNodes]) if (!(node instanceof HTMLElement)) node.remove();
  let at: ChildNode | null = into.firstChild;
  for (const el of next) {
    const key = keyOf(el);
    const old = key === undefined ? undefined : kept.get(key);
    if (old && old.tagName === el.tagName) {
      kept.delete(key!);
      morph(old, el);
    }
    const placed = old ?? el;
    if (placed === at) at = at.nextSibling;
    else into.insertBefore(placed, at);
  }
}

/** Brings `was` up to `next`: its attributes, then its children position by position. */
function morph(was: Element, next: Element): void {
  for (const attribute of [...was.attributes]) {
    if (!next.hasAttribute(attribute.name)) was.removeAttribute(attribute.name);
  }
  for (const attribute of [...next.attributes]) {
    if (was.getAttribute(attribute.name) !== attribute.value) {
      was.setAttribute(attribute.name, attribute.value);
    }
  }
  const olds = [...was.childNodes];
  const news = [...next.childNodes];
  news.forEach((node, i) => {
    const old = olds[i];
    if (old === undefined) was.append(node);
    else if (old.nodeType === Node.TEXT_NODE && node.nodeType === Node.TEXT_NODE) {
      if (old.nodeValue !== node.nodeValue) old.nodeValue = node.nodeValue;
    } else if (
      old instanceof Element && node instanceof Element && old.tagName === node.tagName &&
      (old.tagName !== "BUTTON" || old.isEqualNode(node))
    ) morph(old, node);
    else was.replaceChild(node, old);
  });
  for (const extra of olds.slice(news.length)) extra.remove();
}
