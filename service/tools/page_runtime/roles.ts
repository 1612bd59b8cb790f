/**
 * Roles: what an element is to the user (a button, a textbox, a heading), from its `role`
 * attribute or its tag, and which roles act, contain controls, or are named by their content.
 *
 * @module
 */

import { SCRIPT_CONTROL } from "./contract.ts";
import { clean } from "./text.ts";

/** Elements that can be acted on. */
export const ACTIONABLE =
  "a[href],button,input,select,textarea,[role],[tabindex],[contenteditable],iframe";

/** The role of an input by its type; null for hidden inputs. */
function inputRole(el: HTMLInputElement): string | null {
  const type = (el.getAttribute("type") || "text").toLowerCase();
  switch (type) {
    case "checkbox":
      return "checkbox";
    case "radio":
      return "radio";
    case "range":
      return "slider";
    case "number":
      return "spinbutton";
    case "search":
      return el.list ? "combobox" : "searchbox";
    case "submit":
    case "reset":
    case "button":
    case "image":
    case "file":
      return "button";
    case "hidden":
      return null;
    default:
      return el.list ? "combobox" : "textbox";
  }
}

/**
 * The element's role: its explicit role (`none` read as `presentation`), else the one its tag
 * implies, `generic-clickable` for script-made controls that announce themselves by `onclick` or
 * `tabindex`, or null. A walk that has read the element's `tagName` passes it, and
 * `attributed` false when the element has no attributes (`hasAttributes`): nothing to look up.
 */
export function roleOf(el: Element, tag = el.tagName, attributed = true): string | null {
  const attribute = attributed ? el.getAttribute("role") : null;
  const explicit = attribute ? clean(attribute).split(" ")[0] : "";
  if (explicit) return explicit === "none" ? "presentation" : explicit;
  switch (tag) {
    case "A":
    case "AREA":
      return el.hasAttribute("href") ? "link" : null;
    case "BUTTON":
      return "button";
    case "INPUT":
      return inputRole(el as HTMLInputElement);
    case "TEXTAREA":
      return "textbox";
    case "SELECT": {
      const select = el as HTMLSelectElement;
      return select.multiple || select.size > 1 ? "listbox" : "combobox";
    }
    case "OPTION":
      return "option";
    case "H1":
    case "H2":
    case "H3":
    case "H4":
    case "H5":
    case "H6":
      return "heading";
    case "IMG":
      return el.getAttribute("alt") === "" ? "presentation" : "img";
    case "NAV":
      return "navigation";
    case "MAIN":
      return "main";
    case "HEADER":
      return el.closest("article, section, main, aside, nav") ? null : "banner";
    case "FOOTER":
      return el.closest("article, section, main, aside, nav") ? null : "contentinfo";
    case "ASIDE":
      return "complementary";
    case "FORM":
      return "form";
    case "SECTION":
      return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null;
    case "ARTICLE":
      return "article";
    case "UL":
    case "OL":
    case "MENU":
      return "list";
    case "LI":
      return "listitem";
    case "TABLE":
      return "table";
    case "TR":
      return "row";
    case "TD":
      return "cell";
    case "TH":
      return el.closest("thead") || el.getAttribute("scope") === "col"
        ? "columnheader"
        : "rowheader";
    case "DIALOG":
      return "dialog";
    case "DETAILS":
      return "group";
    case "SUMMARY":
      return "button";
    case "FIELDSET":
      return "group";
    case "IFRAME":
    case "FRAME":
      return "iframe";
    case "PROGRESS":
      return "progressbar";
    case "METER":
      return "meter";
    case "HR":
      return "separator";
    case "OUTPUT":
      return "status";
  }
  const html = el as HTMLElement;
  if (html.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) {
    return "textbox";
  }
  if (
    attributed &&
    (el.hasAttribute("onclick") || (el.hasAttribute("tabindex") && html.tabIndex >= 0))
  ) {
    return SCRIPT_CONTROL;
  }
  return null;
}
