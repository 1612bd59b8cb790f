/**
 * The script Ghostlight installs in each frame's isolated world (created with
 * `Page.createIsolatedWorld`, so the page's own scripts can neither see nor change it). It keeps
 * the element registry behind refs, walks the DOM into a compact accessibility outline (open
 * shadow roots and same-origin iframes included), measures elements and sets form values.
 * Password and secret field values are redacted here, before they leave the browser.
 *
 * The source is plain JavaScript in a string because it runs in the page, not in Deno.
 *
 * @module
 */

import { digestOf } from "./secret_digest.ts";

/** Name of the isolated world the runtime lives in. */
export const WORLD_NAME = "ghostlight";

/**
 * Evaluating this installs the runtime once per world and returns its registry token, a random
 * string that changes whenever the world is new (a navigation or a fresh world), so refs from an
 * older registry are recognised as gone.
 */
export const INSTALL = String.raw`(() => {
if (globalThis.__ghostlight) return globalThis.__ghostlight.token;
const token = Math.random().toString(36).slice(2, 10);
const ids = new WeakMap();
const elements = new Map();
let nextId = 1;
// Dead entries are swept when the registry reaches this size; if most are alive, the next
// sweep waits until it has doubled, so a huge page never sweeps on every new element.
let sweepAt = 200000;

function idOf(el) {
  let id = ids.get(el);
  if (id === undefined) {
    if (elements.size >= sweepAt) {
      for (const [key, ref] of elements) { if (!ref.deref() || !ref.deref().isConnected) elements.delete(key); }
      sweepAt = Math.max(200000, elements.size * 2);
    }
    id = nextId++;
    ids.set(el, id);
    elements.set(id, new WeakRef(el));
  } else if (!elements.has(id)) {
    // Swept while detached, now back in the page (a recycled list row): the same ref again.
    elements.set(id, new WeakRef(el));
  }
  return id;
}
function byId(id) {
  const ref = elements.get(id);
  const el = ref && ref.deref();
  if (!el || !el.isConnected) return null;
  return el;
}

const INLINE = new Set(["A","ABBR","B","BDI","BDO","BR","CITE","CODE","DATA","DFN","EM","I","KBD","MARK","Q","S","SAMP","SMALL","SPAN","STRONG","SUB","SUP","TIME","U","VAR","WBR","FONT","LABEL","INS","DEL"]);
const SKIP = new Set(["SCRIPT","STYLE","NOSCRIPT","TEMPLATE","HEAD","META","LINK","TITLE","SVG","svg","PATH","path"]);
const INTERACTIVE = new Set(["link","button","textbox","searchbox","checkbox","radio","combobox","listbox","option","slider","spinbutton","switch","tab","menuitem","menuitemcheckbox","menuitemradio","treeitem","gridcell"]);
const NAME_FROM_CONTENT = new Set(["button","link","heading","option","cell","listitem","gridcell","columnheader","rowheader","tab","menuitem","menuitemcheckbox","menuitemradio","treeitem","checkbox","radio","switch","tooltip","summary","legend","caption","label"]);
const CONTAINER_ROLES = new Set(["cell","gridcell","columnheader","rowheader","listitem","generic-clickable"]);
const ACTIONABLE = "a[href],button,input,select,textarea,[role],[tabindex],[contenteditable],iframe";
const SECRET_FIELD = /pass(word|wd|code)?|secret|token|otp|one-time|cvv|cvc|csc|security.?code|api.?key|\bpin\b|cc-num|card.?number/i;

function clean(text) { return (text || "").replace(/\s+/g, " ").trim(); }
function clip(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }

function isHidden(el) {
  if (el.hidden || el.getAttribute("aria-hidden") === "true") return true;
  if (typeof el.checkVisibility === "function" && !el.checkVisibility()) {
    // display: contents (slots, framework wrappers) has no box of its own but shows its children.
    return el.ownerDocument.defaultView.getComputedStyle(el).display !== "contents";
  }
  return false;
}

function inputRole(el) {
  const type = (el.getAttribute("type") || "text").toLowerCase();
  switch (type) {
    case "checkbox": return "checkbox";
    case "radio": return "radio";
    case "range": return "slider";
    case "number": return "spinbutton";
    case "search": return el.list ? "combobox" : "searchbox";
    case "submit": case "reset": case "button": case "image": case "file": return "button";
    case "hidden": return null;
    default: return el.list ? "combobox" : "textbox";
  }
}

function roleOf(el) {
  const explicit = clean(el.getAttribute("role")).split(" ")[0];
  if (explicit) return explicit === "none" ? "presentation" : explicit;
  const tag = el.tagName;
  switch (tag) {
    case "A": case "AREA": return el.hasAttribute("href") ? "link" : null;
    case "BUTTON": return "button";
    case "INPUT": return inputRole(el);
    case "TEXTAREA": return "textbox";
    case "SELECT": return el.multiple || el.size > 1 ? "listbox" : "combobox";
    case "OPTION": return "option";
    case "H1": case "H2": case "H3": case "H4": case "H5": case "H6": return "heading";
    case "IMG": return el.getAttribute("alt") === "" ? "presentation" : "img";
    case "NAV": return "navigation";
    case "MAIN": return "main";
    case "HEADER": return el.closest("article, section, main, aside, nav") ? null : "banner";
    case "FOOTER": return el.closest("article, section, main, aside, nav") ? null : "contentinfo";
    case "ASIDE": return "complementary";
    case "FORM": return "form";
    case "SECTION": return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null;
    case "ARTICLE": return "article";
    case "UL": case "OL": case "MENU": return "list";
    case "LI": return "listitem";
    case "TABLE": return "table";
    case "TR": return "row";
    case "TD": return "cell";
    case "TH": return el.closest("thead") || el.getAttribute("scope") === "col" ? "columnheader" : "rowheader";
    case "DIALOG": return "dialog";
    case "DETAILS": return "group";
    case "SUMMARY": return "button";
    case "FIELDSET": return "group";
    case "IFRAME": case "FRAME": return "iframe";
    case "PROGRESS": return "progressbar";
    case "METER": return "meter";
    case "HR": return "separator";
    case "OUTPUT": return "status";
  }
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return "textbox";
  if (el.hasAttribute("onclick") || (el.hasAttribute("tabindex") && el.tabIndex >= 0)) return "generic-clickable";
  return null;
}

function textOf(node, budget) {
  let out = "";
  const visit = (n) => {
    if (out.length > budget) return;
    if (n.nodeType === 3) { out += n.data; return; }
    if (n.nodeType !== 1) return;
    if (n.tagName.toLowerCase() === "svg") {
      const title = n.querySelector("title");
      out += " " + (n.getAttribute("aria-label") || (title ? title.textContent : "")) + " ";
      return;
    }
    if (SKIP.has(n.tagName) || n.getAttribute("aria-hidden") === "true" || n.hidden) return;
    if (n.tagName === "INPUT") { out += " " + (isSecretField(n) ? "" : n.value) + " "; return; }
    if (n.tagName === "IMG") { out += " " + (n.getAttribute("alt") || "") + " "; return; }
    if (n.tagName === "SLOT") { const nodes = n.assignedNodes(); if (nodes.length) { nodes.forEach(visit); return; } }
    if (n.shadowRoot) { n.shadowRoot.childNodes.forEach(visit); return; }
    if (!INLINE.has(n.tagName)) out += " ";
    n.childNodes.forEach(visit);
    if (!INLINE.has(n.tagName)) out += " ";
  };
  visit(node);
  return clean(out);
}

function rootOf(el) { return el.getRootNode ? el.getRootNode() : el.ownerDocument; }

function labelsOf(el) {
  const texts = [];
  if (el.labels) for (const label of el.labels) texts.push(textOfLabel(label, el));
  else if (el.id) {
    const root = rootOf(el);
    if (root.querySelectorAll) for (const label of root.querySelectorAll("label[for]")) {
      if (label.htmlFor === el.id) texts.push(textOfLabel(label, el));
    }
  }
  return clean(texts.join(" "));
}
function textOfLabel(label, control) {
  const copy = [];
  const visit = (n) => {
    if (n === control) return;
    if (n.nodeType === 3) copy.push(n.data);
    else if (n.nodeType === 1 && !SKIP.has(n.tagName) && !(n.tagName === "SELECT" || n.tagName === "INPUT" || n.tagName === "TEXTAREA")) n.childNodes.forEach(visit);
  };
  visit(label);
  return clean(copy.join(" "));
}

function nameOf(el, role) {
  const labelledby = el.getAttribute("aria-labelledby");
  if (labelledby) {
    const root = rootOf(el);
    const parts = labelledby.split(/\s+/).map((id) => {
      const target = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
      return target ? textOf(target, 300) : "";
    });
    const joined = clean(parts.join(" "));
    if (joined) return joined;
  }
  const label = clean(el.getAttribute("aria-label"));
  if (label) return label;
  const tag = el.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || tag === "METER" || tag === "PROGRESS" || tag === "OUTPUT") {
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "INPUT" && (type === "submit" || type === "reset" || type === "button")) {
      return clean(el.value) || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
    }
    if (tag === "INPUT" && type === "image") return clean(el.getAttribute("alt")) || "Submit";
    const fromLabel = labelsOf(el);
    if (fromLabel) return fromLabel;
    return clean(el.getAttribute("title")) || clean(el.getAttribute("placeholder")) || clean(el.getAttribute("aria-placeholder"));
  }
  if (tag === "IMG" || tag === "AREA") return clean(el.getAttribute("alt")) || clean(el.getAttribute("title"));
  if (tag.toLowerCase() === "svg") { const title = el.querySelector("title"); return title ? clean(title.textContent) : ""; }
  if (tag === "FIELDSET") { const legend = el.querySelector(":scope > legend"); if (legend) return textOf(legend, 200); }
  if (tag === "TABLE") { const caption = el.querySelector(":scope > caption"); if (caption) return textOf(caption, 200); }
  if (tag === "IFRAME" || tag === "FRAME") return clean(el.getAttribute("title")) || clean(el.getAttribute("name"));
  if (CONTAINER_ROLES.has(role) && el.querySelector(ACTIONABLE)) return clean(el.getAttribute("title"));
  if (NAME_FROM_CONTENT.has(role) || role === "generic-clickable") {
    const text = textOf(el, 400);
    if (text) return text;
  }
  return clean(el.getAttribute("title"));
}

function isSecretField(el) {
  if (el.tagName !== "INPUT" && el.tagName !== "TEXTAREA") return false;
  if ((el.getAttribute("type") || "").toLowerCase() === "password") return true;
  const hints = [el.getAttribute("autocomplete"), el.getAttribute("name"), el.id].filter(Boolean).join(" ");
  return SECRET_FIELD.test(hints);
}

function valueOf(el, role) {
  const tag = el.tagName;
  let value = null;
  if (tag === "INPUT") {
    const type = (el.getAttribute("type") || "text").toLowerCase();
    if (["checkbox", "radio", "submit", "reset", "button", "image", "hidden"].includes(type)) return null;
    if (type === "file") value = Array.from(el.files || []).map((f) => f.name).join(", ");
    else value = el.value;
  } else if (tag === "TEXTAREA") value = el.value;
  else if (tag === "SELECT") value = Array.from(el.selectedOptions).map((o) => clean(o.label || o.text)).join(", ");
  else if (role === "textbox" && el.isContentEditable) value = textOf(el, 400);
  else if (role === "slider" || role === "spinbutton" || role === "progressbar" || role === "meter") value = el.getAttribute("aria-valuenow") || (el.value !== undefined ? String(el.value) : null);
  else if (role === "combobox" || role === "textbox" || role === "searchbox") value = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") || textOf(el, 200);
  if (value === null || value === "") return value;
  if (isSecretField(el)) return "[redacted]";
  return value;
}

// :disabled also covers controls inside a disabled fieldset.
function isDisabled(el) {
  return el.matches(":disabled") || el.getAttribute("aria-disabled") === "true";
}

function stateOf(el, role) {
  const flags = [];
  const aria = (name) => el.getAttribute("aria-" + name);
  if (role === "heading") { const level = aria("level") || (/^H(\d)$/.exec(el.tagName) || [])[1]; if (level) flags.push("level=" + level); }
  const checkable = role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio";
  if (checkable) {
    const state = el.tagName === "INPUT" ? (el.indeterminate ? "mixed" : String(el.checked)) : aria("checked") || "false";
    flags.push(state === "true" ? "checked" : state === "mixed" ? "mixed" : "unchecked");
  }
  if (role === "option" && (el.selected || aria("selected") === "true")) flags.push("selected");
  if (aria("selected") === "true" && role !== "option") flags.push("selected");
  if (aria("pressed") === "true") flags.push("pressed");
  // A modal dialog makes the rest of the page inert: act inside it first.
  if ((role === "dialog" || role === "alertdialog") && (aria("modal") === "true" || el.matches(":modal"))) flags.push("modal");
  const expanded = aria("expanded");
  if (expanded === "true" || (el.tagName === "DETAILS" && el.open)) flags.push("expanded");
  else if (expanded === "false" || el.tagName === "DETAILS") flags.push("collapsed");
  if (isDisabled(el)) flags.push("disabled");
  if (el.required || aria("required") === "true") flags.push("required");
  if (el.readOnly && (el.tagName === "INPUT" || el.tagName === "TEXTAREA")) flags.push("readonly");
  if (aria("invalid") === "true") flags.push("invalid");
  if (el.tagName === "INPUT") {
    const type = (el.getAttribute("type") || "text").toLowerCase();
    if (!["text", "checkbox", "radio", "submit", "button", "reset"].includes(type)) flags.push("type=" + type);
  }
  if (el.getAttribute("aria-current") && el.getAttribute("aria-current") !== "false") flags.push("current");
  return flags;
}

function extrasOf(el, role, name) {
  const out = {};
  const placeholder = el.getAttribute("placeholder");
  if (placeholder && clean(placeholder) !== name) out.placeholder = clip(clean(placeholder), 80);
  if (role === "iframe" && el.src) out.href = clip(el.src, 120);
  if (role === "link") {
    const href = el.getAttribute("href") || "";
    if (href && !href.startsWith("javascript:")) out.href = clip(href, 120);
  }
  return out;
}

function frameDocument(el) {
  try { return el.contentDocument || null; } catch { return null; }
}

function snapshot(options) {
  const filter = options.filter || "all";
  const maxDepth = typeof options.depth === "number" ? options.depth : Infinity;
  const limit = options.limit || 20000;
  const wantHints = !!options.hints;
  const nodes = [];
  const frames = [];
  let omitted = 0;
  let cutByDepth = 0;
  let text = "";
  let textDepth = 0;
  let textOwner = null;
  let underPointer = false;
  const flushText = () => {
    const value = clean(text);
    text = "";
    if (!value || filter === "interactive") return;
    if (textDepth > maxDepth) { cutByDepth++; return; }
    if (nodes.length >= limit) { omitted++; return; }
    nodes.push({ id: wantHints && textOwner ? idOf(textOwner) : 0, depth: textDepth, role: "text", name: clip(value, 300) });
  };
  const emit = (el, role, depth) => {
    flushText();
    if (nodes.length >= limit) { omitted++; return null; }
    const name = clip(nameOf(el, role), 200);
    const node = { id: idOf(el), depth, role: role === "generic-clickable" ? "clickable" : role, name };
    const value = valueOf(el, role);
    if (value !== null && value !== undefined && value !== "" && value !== name) node.value = clip(value, 200);
    const states = stateOf(el, role);
    if (states.length) node.states = states;
    const extras = extrasOf(el, role, name);
    if (extras.placeholder) node.placeholder = extras.placeholder;
    if (extras.href) node.href = extras.href;
    if (wantHints) {
      const root = rootOf(el);
      const describedBy = clean(el.getAttribute("aria-describedby")).split(" ")[0];
      const description = describedBy && root.getElementById ? root.getElementById(describedBy) : null;
      const hints = [el.getAttribute("title"), el.getAttribute("name"), el.id, description ? textOf(description, 100) : "", el.getAttribute("data-testid")].filter(Boolean).join(" ");
      if (hints) node.hints = clip(hints, 200);
    }
    nodes.push(node);
    return node;
  };
  const walkChildren = (parent, depth, suppressText) => {
    const kids = parent.shadowRoot ? parent.shadowRoot.childNodes : (parent.tagName === "SLOT" && parent.assignedNodes().length ? parent.assignedNodes() : parent.childNodes);
    for (const child of kids) walk(child, depth, suppressText);
  };
  const walk = (n, depth, suppressText) => {
    if (n.nodeType === 3) {
      if (suppressText) return;
      if (!text) { textDepth = depth; textOwner = n.parentElement || (n.parentNode && n.parentNode.host) || null; }
      text += n.data;
      return;
    }
    if (n.nodeType === 11) { walkChildren(n, depth, suppressText); return; }
    if (n.nodeType !== 1) return;
    if (n.tagName.toLowerCase() === "svg") {
      // An icon is part of its control's name; a labelled graphic stands on its own.
      if (!isHidden(n) && !underPointer && (n.getAttribute("aria-label") || n.getAttribute("role") === "img")) {
        if (depth <= maxDepth && filter !== "interactive") emit(n, "img", depth);
      }
      return;
    }
    if (SKIP.has(n.tagName) || isHidden(n)) return;
    const outer = underPointer;
    try { walkElement(n, depth, suppressText); } finally { underPointer = outer; }
  };
  const walkElement = (n, depth, suppressText) => {
    if ((n.tagName === "LABEL" && n.control && n.control !== n) || ((n.tagName === "LEGEND" || n.tagName === "CAPTION") && n.parentElement && n.parentElement.getAttribute("aria-label") === null)) {
      walkChildren(n, depth, true);
      return;
    }
    // visibility: hidden hides the element and its text, but a child may be visible again.
    if (typeof n.checkVisibility === "function" && n.checkVisibility() && !n.checkVisibility({ visibilityProperty: true })) {
      flushText();
      walkChildren(n, depth, true);
      return;
    }
    let role = roleOf(n);
    if (role === "presentation") role = null;
    // Script-made controls (a div with a click listener) show themselves by a pointer cursor.
    if (!role && !underPointer && n.tagName !== "BR" && n.ownerDocument.defaultView.getComputedStyle(n).cursor === "pointer") role = "generic-clickable";
    if (role && (INTERACTIVE.has(role) || role === "generic-clickable")) underPointer = true;
    if (!role) {
      if (!INLINE.has(n.tagName)) flushText();
      if (n.tagName === "BR") { text += " "; return; }
      walkChildren(n, depth, suppressText);
      if (!INLINE.has(n.tagName)) flushText();
      return;
    }
    if (depth > maxDepth) { cutByDepth++; flushText(); return; }
    const actionable = INTERACTIVE.has(role) || role === "generic-clickable" || role === "iframe";
    // Inside an element named by its content, only controls add lines: the rest is its name.
    const interesting = actionable || (filter !== "interactive" && !suppressText);
    const node = interesting ? emit(n, role, depth) : (flushText(), null);
    if (role === "iframe") {
      const doc = frameDocument(n);
      const rect = n.getBoundingClientRect();
      // Tracking pixels and hidden helper frames hold nothing to read or act on.
      if (rect.width < 3 || rect.height < 3) return;
      if (doc && doc.body) walk(doc.body, depth + 1, false);
      else if (node) { node.frame = true; frames.push(node.id); }
      return;
    }
    if (n.tagName === "SELECT") {
      if (filter === "interactive") return;
      let count = 0;
      for (const option of n.options) {
        if (count++ >= 25) {
          flushText();
          nodes.push({ id: 0, depth: depth + 1, role: "text", name: "… " + (n.options.length - 25) + " more options (form_input takes any option's label)" });
          break;
        }
        emit(option, "option", depth + 1);
      }
      return;
    }
    if (n.tagName === "TEXTAREA" || n.tagName === "INPUT") return;
    const childDepth = node ? depth + 1 : depth;
    const nameFromContent = node && (NAME_FROM_CONTENT.has(role) || role === "generic-clickable") && node.name && !n.getAttribute("aria-label");
    walkChildren(n, childDepth, suppressText || nameFromContent || role === "textbox");
    flushText();
  };
  let start = document.body || document.documentElement;
  if (options.root) {
    start = byId(options.root);
    if (!start) return { gone: true };
  }
  if (start) walk(start, 0, false);
  flushText();
  return { token, url: location.href, title: document.title, nodes, frames, omitted, cutByDepth };
}

function frameOffset(win) {
  let x = 0, y = 0;
  while (true) {
    let frame = null;
    try { frame = win.frameElement; } catch { frame = null; }
    if (!frame) break;
    const rect = frame.getBoundingClientRect();
    const style = frame.ownerDocument.defaultView.getComputedStyle(frame);
    x += rect.left + frame.clientLeft + parseFloat(style.paddingLeft || "0");
    y += rect.top + frame.clientTop + parseFloat(style.paddingTop || "0");
    win = frame.ownerDocument.defaultView;
  }
  return { x, y };
}

function box(id) {
  const el = byId(id);
  if (!el) return null;
  const rect = el.getBoundingClientRect();
  const offset = frameOffset(el.ownerDocument.defaultView);
  const view = el.ownerDocument.defaultView;
  const x = rect.left + offset.x, y = rect.top + offset.y;
  // In view of its own frame and of the outermost window this world can reach; the service
  // checks the top-level viewport for frames in other origins.
  let outer = view;
  try { while (outer.frameElement) outer = outer.frameElement.ownerDocument.defaultView; } catch {}
  return {
    x: Math.round(x), y: Math.round(y), width: Math.round(rect.width), height: Math.round(rect.height),
    visible: rect.width > 0 && rect.height > 0 && !isHidden(el) &&
      (typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true, opacityProperty: true })),
    inViewport: rect.bottom > 0 && rect.right > 0 && rect.top < view.innerHeight && rect.left < view.innerWidth &&
      y + rect.height > 0 && x + rect.width > 0 && y < outer.innerHeight && x < outer.innerWidth,
  };
}

function boxes(list) { return list.map((id) => box(id)); }

function contentOrigin(id) {
  const el = byId(id);
  if (!el) return null;
  const b = box(id);
  const style = el.ownerDocument.defaultView.getComputedStyle(el);
  return { x: b.x + el.clientLeft + parseFloat(style.paddingLeft || "0"), y: b.y + el.clientTop + parseFloat(style.paddingTop || "0") };
}

function describe(id) {
  const el = byId(id);
  if (!el) return null;
  const role = roleOf(el) || "generic";
  const node = { role: role === "generic-clickable" ? "clickable" : role, name: clip(nameOf(el, role), 200) };
  const value = valueOf(el, role);
  if (value !== null && value !== undefined) node.value = clip(value, 200);
  const states = stateOf(el, role);
  if (states.length) node.states = states;
  node.enabled = !isDisabled(el);
  node.box = box(id);
  return node;
}

function scrollTo(id) {
  const el = byId(id);
  if (!el) return null;
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  return box(id);
}

function nativeSetter(el, prop) {
  let proto = Object.getPrototypeOf(el);
  while (proto) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, prop);
    if (descriptor && descriptor.set) return descriptor.set;
    proto = Object.getPrototypeOf(proto);
  }
  return null;
}

function fire(el, type, init) {
  const view = el.ownerDocument.defaultView;
  const Ctor = type === "input" || type === "beforeinput" ? view.InputEvent : view.Event;
  el.dispatchEvent(new Ctor(type, Object.assign({ bubbles: true, composed: true }, init || {})));
}

function toBool(value) {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  const text = String(value).trim().toLowerCase();
  if (["true", "on", "yes", "y", "checked", "1"].includes(text)) return true;
  if (["false", "off", "no", "n", "unchecked", "0", ""].includes(text)) return false;
  return null;
}

function setValue(id, value) {
  const el = byId(id);
  if (!el) return { error: "gone" };
  const tag = el.tagName;
  const type = (el.getAttribute("type") || "").toLowerCase();
  const role = roleOf(el);
  if (isDisabled(el)) return { error: "disabled" };
  if (el.readOnly && (tag === "INPUT" || tag === "TEXTAREA")) return { error: "readonly" };
  const focus = () => { try { el.focus({ preventScroll: false }); } catch {} };
  const choice = typeof value === "string" && toBool(value) === null;
  if (choice && (type === "radio" || !(tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable))) {
    // A radio group (or one of its radios) given the label or value of the radio to choose.
    const scope = type === "radio" ? (el.form || el.getRootNode()) : el;
    const radios = Array.from(scope.querySelectorAll("input[type=radio]")).filter((r) => type !== "radio" || r.name === el.name);
    if (radios.length) {
      const wanted = clean(value).toLowerCase();
      const radio = radios.find((r) => r.value.toLowerCase() === wanted) || radios.find((r) => nameOf(r, "radio").toLowerCase() === wanted) ||
        radios.find((r) => nameOf(r, "radio").toLowerCase().includes(wanted));
      if (!radio) return { error: "no_option", options: radios.slice(0, 30).map((r) => ({ value: r.value, label: nameOf(r, "radio") })) };
      try { radio.focus(); } catch {}
      if (!radio.checked) radio.click();
      if (!radio.checked) { nativeSetter(radio, "checked").call(radio, true); fire(radio, "input"); fire(radio, "change"); }
      return { kind: "radio", chose: idOf(radio), after: describe(idOf(radio)) };
    }
  }
  if (tag === "INPUT" && (type === "checkbox" || type === "radio")) {
    const want = toBool(value);
    if (want === null) return { error: "not_boolean", role: type };
    if (type === "radio" && !want) return { error: "radio_off" };
    focus();
    if (el.checked !== want) {
      el.click();
      if (el.checked !== want) { nativeSetter(el, "checked").call(el, want); fire(el, "input"); fire(el, "change"); }
    }
    return { kind: type, after: describe(id) };
  }
  if (role === "checkbox" || role === "switch" || role === "radio") {
    const want = toBool(value);
    if (want === null) return { error: "not_boolean", role };
    const current = el.getAttribute("aria-checked") === "true";
    if (current !== want) el.click();
    return { kind: role, after: describe(id) };
  }
  if (tag === "SELECT") {
    const wanted = String(value);
    const options = Array.from(el.options);
    const option = options.find((o) => o.value === wanted) || options.find((o) => clean(o.label || o.text) === clean(wanted)) ||
      options.find((o) => clean(o.label || o.text).toLowerCase() === clean(wanted).toLowerCase());
    if (!option) return { error: "no_option", options: options.slice(0, 30).map((o) => ({ value: o.value, label: clean(o.label || o.text) })) };
    focus();
    nativeSetter(el, "value").call(el, option.value);
    option.selected = true;
    fire(el, "input");
    fire(el, "change");
    return { kind: "select", after: describe(id) };
  }
  if (tag === "INPUT" || tag === "TEXTAREA") {
    if (["file", "submit", "button", "reset", "image", "hidden"].includes(type)) return { error: "not_settable", type };
    const text = String(value);
    focus();
    const setter = nativeSetter(el, "value");
    fire(el, "beforeinput", { inputType: "insertReplacementText", data: text, cancelable: true });
    setter.call(el, text);
    fire(el, "input", { inputType: "insertReplacementText", data: text });
    fire(el, "change");
    return { kind: tag === "TEXTAREA" ? "textarea" : "text", after: describe(id), actual: el.value === text };
  }
  if (el.isContentEditable) {
    const text = String(value);
    focus();
    const doc = el.ownerDocument;
    const selection = doc.getSelection();
    const range = doc.createRange();
    range.selectNodeContents(el);
    selection.removeAllRanges();
    selection.addRange(range);
    let done = false;
    try { done = doc.execCommand("insertText", false, text); } catch { done = false; }
    if (!done || clean(el.textContent) !== clean(text)) {
      el.textContent = text;
      fire(el, "input", { inputType: "insertText", data: text });
    }
    return { kind: "contenteditable", after: describe(id) };
  }
  return { error: "not_a_field", role: role || el.tagName.toLowerCase() };
}

// The text with the values of the page's secret fields (in shadow roots and same-origin frames
// too) replaced, so those values never leave the page. A value of fewer than 4 characters is
// replaced only where it stands alone (the whole text, or a quoted string), since replacing it
// everywhere would eat ordinary words.
// The values of the secret fields in the page, its shadow roots and same-origin frames.
function secretValues() {
  const found = new Set();
  const visit = (root, depth) => {
    for (const el of root.querySelectorAll("input, textarea, iframe, frame")) {
      if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
        const doc = frameDocument(el);
        if (doc && depth < 4) visit(doc, depth + 1);
      } else if (isSecretField(el) && el.value && found.size < 200) found.add(el.value);
    }
    for (const host of root.querySelectorAll("*")) if (host.shadowRoot) visit(host.shadowRoot, depth);
  };
  visit(document, 0);
  return Array.from(found);
}

const digestOf = ${digestOf.toString()};

// What redactFields would replace, as digests (see secret_digest.ts): the values stay here.
function secretDigests(base, moduli) {
  const out = [];
  for (const value of secretValues()) {
    const [h1, h2] = digestOf(value, base, moduli);
    out.push({ length: value.length, h1, h2, match: "whole" });
    const run = value.length >= 4 ? value : JSON.stringify(value);
    const [r1, r2] = digestOf(run, base, moduli);
    out.push({ length: run.length, h1: r1, h2: r2, match: value.length >= 4 ? "run" : "quoted" });
  }
  return out;
}

function redactFields(text) {
  let out = text;
  for (const value of secretValues().sort((a, b) => b.length - a.length)) {
    if (out === value) return "[redacted]";
    if (value.length >= 4) out = out.split(value).join("[redacted]");
    else out = out.split(JSON.stringify(value)).join('"[redacted]"');
  }
  return out;
}

const FRAME_MARK = "\u0000";
const PHRASING = new Set(["B","I","EM","STRONG","CODE","SMALL","SUB","SUP","ABBR","MARK","TIME","U","S","Q","CITE","DFN","KBD","SAMP","VAR","BDI","BDO","WBR","DATA","FONT","INS","DEL"]);
const PARAGRAPH = /^(P|H[1-6]|UL|OL|DL|TABLE|BLOCKQUOTE|PRE|FIGURE|SECTION|ARTICLE|HEADER|FOOTER|NAV|ASIDE|FORM|FIELDSET)$/;

// innerText leaves out shadow DOM and iframes; this walks the flat tree (open shadow roots,
// slots, same-origin iframes) and breaks lines where the layout does, as innerText would.
function flatText(root) {
  const out = [];
  let line = "";
  const end = (paragraph) => {
    const text = line.replace(/\s+/g, " ").trim();
    line = "";
    if (text) out.push(text);
    if (paragraph && out.length && out[out.length - 1] !== "") out.push("");
  };
  const visit = (n) => {
    if (n.nodeType === 3) { line += n.data.split(FRAME_MARK).join(""); return; }
    if (n.nodeType === 11) { n.childNodes.forEach(visit); return; }
    if (n.nodeType !== 1) return;
    const tag = n.tagName;
    if (SKIP.has(tag) || tag.toLowerCase() === "svg" || isHidden(n)) return;
    if (tag === "BR") { end(false); return; }
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (tag === "IFRAME" || tag === "FRAME") {
      const doc = frameDocument(n);
      end(true);
      if (doc && doc.body) visit(doc.body);
      // A cross-origin frame is read by the service in its own world and put in at the marker.
      else out.push(FRAME_MARK + idOf(n) + FRAME_MARK);
      end(true);
      return;
    }
    if (tag === "PRE") { end(true); out.push(n.textContent.replace(/\s+$/, "")); end(true); return; }
    const display = PHRASING.has(tag) ? "inline" : n.ownerDocument.defaultView.getComputedStyle(n).display;
    const block = !display.startsWith("inline") && display !== "contents";
    const paragraph = block && PARAGRAPH.test(tag);
    if (block) end(paragraph);
    const kids = n.shadowRoot ? n.shadowRoot.childNodes : (tag === "SLOT" && n.assignedNodes().length ? n.assignedNodes() : n.childNodes);
    kids.forEach(visit);
    if (tag === "TD" || tag === "TH") line += " \t ";
    if (block) end(paragraph);
  };
  visit(root);
  end(false);
  return out.join("\n").replace(/ ?\t ?/g, "\t").replace(/\n{3,}/g, "\n\n").trim();
}

function hasFlatTreeParts(root) {
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot || el.tagName === "IFRAME" || el.tagName === "FRAME") return true;
  }
  return false;
}

// The text goes back cut to limit characters (with its full length), so a huge page costs the
// service no more than what it will show; the title is clipped too.
function readable(whole, limit) {
  const cap = (text) => text.length > limit ? text.slice(0, limit) : text;
  const title = clip(String(document.title || ""), 300);
  const textOf = (el) => hasFlatTreeParts(el)
    ? flatText(el)
    : (el.innerText || "").split(FRAME_MARK).join("").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
  const body = document.body || document.documentElement;
  let root = body, scope = "whole page";
  if (whole) { const text = textOf(body); return { url: location.href, title, text: cap(text), length: text.length, scope, whole: text.length }; }
  const articles = Array.from(document.querySelectorAll("article")).filter((a) => textOf(a).length >= 200);
  const main = document.querySelector("main, [role=main]");
  if (articles.length === 1) { root = articles[0]; scope = "article"; }
  else if (main && textOf(main).length >= 200) { root = main; scope = "main content"; }
  else if (articles.length === 0) {
    const weight = new Map();
    for (const p of document.querySelectorAll("p")) {
      const parent = p.parentElement;
      if (parent) weight.set(parent, (weight.get(parent) || 0) + (p.textContent || "").length);
    }
    let best = null, most = 0;
    for (const [el, w] of weight) if (w > most) { best = el; most = w; }
    if (best && most >= 1000 && most >= 0.5 * textOf(body).length) { root = best; scope = "main content"; }
  }
  const text = textOf(root);
  return { url: location.href, title, text: cap(text), length: text.length, scope, whole: root === body ? text.length : textOf(body).length };
}

globalThis.__ghostlight = { token, readable, redactFields, secretDigests, snapshot, box, boxes, contentOrigin, describe, scrollTo, setValue, element: byId };
return token;
})()`;
