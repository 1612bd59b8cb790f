/**
 * What a receipt observes in the page around an action: a mutation counter (installed before
 * the first action, kept in this world so the page can neither see nor fake it), the element at
 * the action's point, the focused element, and after the action whether the page settled and
 * which elements changed. Elements are named by the one describer.
 *
 * @module
 */

import { redactedTitle, redactFields } from "./secrets.ts";
import { clip } from "./text.ts";
import { invalidity, MAX_INVALID_CHARS } from "./form.ts";
import type { After, Before, Prepared, ReceiptElement } from "./contract.ts";
import { describe, receiptElement } from "./describe.ts";
import { aim, FRAME_TAGS, frameAt, isVisible } from "./geometry.ts";
import { bindToDocument, byId, current } from "./registry.ts";

/** The counter behind receipts: mutations seen, when the last came, what they touched. */
interface Counter {
  n: number;
  t: number;
  changed: Element[];
  /** Where a navigation to another document this action started goes, once one started. */
  nav: string | null;
  /** That navigation's event: a page's own listener may cancel it after ours heard it. */
  navEvent: Event | null;
  /** Whether an action is under way (its input is noted); from its before to its receipt. */
  armed: boolean;
  /**
   * The number of the latest action noted before: a settle read of an earlier one (its call over,
   * the read still running in the page) must not disarm the action after it.
   */
  action: number;
  /** Trusted input events noted, counted. */
  input: number;
  /** The action's last input event once its handlers returned (see {@linkcode noteInput}). */
  handled: Handled | null;
  /**
   * The first control the browser found invalid while the action was under way: its `invalid`
   * event, which the browser fires when its own validation refuses a form's submission.
   */
  invalid: Element | null;
  /**
   * Whether the action's point (noted before it) lies on this document's own content, not on a
   * frame showing another document: a button pressed there must reach this window.
   */
  pressHere: boolean;
  /** Whether a trusted button press reached this window since the action began. */
  pressed: boolean;
  /** Whether, as this window heard it, a button is held: pressed and not yet released. */
  down: boolean;
  /** Trusted button releases that reached this window since the action began. */
  releases: number;
}

/** The events by which a button press reaches a window (a cancelled pointerdown has no mousedown). */
const PRESS_EVENTS = ["pointerdown", "mousedown"];
/**
 * The events by which a button's release reaches a window: a cancelled pointerdown has no
 * mouseup, and a release that ends a drag of the page's content has neither (its drag ends).
 */
const RELEASE_EVENTS = ["pointerup", "mouseup", "click", "dragend"];

/** One input event after its handlers: the count then, and whether a whole frame followed. */
interface Handled {
  input: number;
  n: number;
  framed: boolean;
}

/** The events an action's input ends with: pointer, mouse, key, text and wheel. */
const INPUT_EVENTS = [
  "pointermove",
  "pointerdown",
  "pointerup",
  "mousemove",
  "mousedown",
  "mouseup",
  "click",
  "dblclick",
  "contextmenu",
  "keydown",
  "keyup",
  "input",
  "wheel",
];

/**
 * Notes a trusted input event as it reaches the window, after the page's own handlers on the way
 * (and their microtasks) ran: the mutation count then, and once a whole frame has rendered after
 * it (the page's animation-frame callbacks from those handlers ran before ours) and the task after
 * that frame, that it did. The settle wait then knows whether the frame after the action has
 * already passed. An event the page stops before the window is not noted: an earlier one counts,
 * with the stopped event's changes coming after its count, or none does and the wait is as before.
 */
function noteInput(counter: Counter, event: Event): void {
  if (!counter.armed || !event.isTrusted) return;
  const handled: Handled = { input: ++counter.input, n: counter.n, framed: false };
  counter.handled = handled;
  requestAnimationFrame(() => {
    setTimeout(() => {
      handled.framed = true;
    }, 0);
  });
}

function counterAt(key: string): Counter | undefined {
  return (globalThis as unknown as Record<string, Counter | undefined>)[key];
}

/** The focused element, looking into shadow roots; null when nothing but the body has focus. */
export function focused(): Element | null {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  return active && active !== document.body ? active : null;
}

/** A navigation the page starts, as the Navigation API announces it (where Chromium has it). */
type NavigateEventLike = Event & {
  destination: { url: string; sameDocument: boolean };
  canIntercept: boolean;
  /** The file name when the navigation is a download (the page stays). */
  downloadRequest?: string | null;
};

function install(key: string, keep: number): Counter {
  const counter: Counter = {
    n: 0,
    t: 0,
    changed: [],
    nav: null,
    navEvent: null,
    armed: false,
    action: 0,
    input: 0,
    handled: null,
    invalid: null,
    pressHere: false,
    pressed: false,
    down: false,
    releases: 0,
  };
  const observer = new MutationObserver((records) => {
    counter.n += records.length;
    counter.t = performance.now();
    for (const record of records) {
      if (counter.changed.length >= keep) break;
      const node = record.target;
      const el = node.nodeType === 1 ? node as Element : node.parentElement;
      if (el) counter.changed.push(el);
    }
  });
  // The counter and its listeners are the window's; its observer follows the window's document.
  bindToDocument(() => {
    observer.disconnect();
    observer.observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
  });
  // The evidence that an action is leaving this document: the receipt then waits for the new
  // one to load (on the browser's events) instead of for this one to go quiet.
  const navigation = (globalThis as unknown as { navigation?: EventTarget }).navigation;
  // A download leaves nothing (the page stays), nor does a navigation the page's own listener
  // cancels (read when the receipt asks): waiting for their new document would wait out the
  // service's whole bound (decision 0495).
  navigation?.addEventListener("navigate", (event) => {
    const navigate = event as NavigateEventLike;
    if (!navigate.destination.sameDocument && typeof navigate.downloadRequest !== "string") {
      counter.nav = navigate.destination.url;
      counter.navEvent = event;
    }
  });
  for (const type of INPUT_EVENTS) {
    addEventListener(type, (event) => noteInput(counter, event), { passive: true });
  }
  // A press is noted as it reaches the window, before any handler of the page can stop it: the
  // browser answers a dispatched press it dropped as if delivered, and only the page can tell.
  // Its release too: the browser has answered a release before this window heard it.
  for (const type of PRESS_EVENTS) {
    addEventListener(type, (event) => {
      if (!event.isTrusted) return;
      counter.down = true;
      if (counter.armed) counter.pressed = true;
    }, { capture: true, passive: true });
  }
  // The events of one release (pointerup, mouseup, click) count once: the first ends the hold.
  for (const type of RELEASE_EVENTS) {
    addEventListener(type, (event) => {
      if (!event.isTrusted || !counter.down) return;
      counter.down = false;
      if (counter.armed) counter.releases++;
    }, { capture: true, passive: true });
  }
  // `invalid` does not bubble: heard on the way down, before the page's handlers on the control.
  addEventListener("invalid", (event) => {
    if (counter.armed && event.isTrusted && !counter.invalid) {
      counter.invalid = event.target as Element;
    }
  }, { capture: true, passive: true });
  Object.defineProperty(globalThis, key, { value: counter });
  return counter;
}

/**
 * Notes the page before an action, installing the counter under `key` on first use (and
 * keeping up to `keep` changed elements per action); `point` names the element there.
 */
export function observeBefore(
  key: string,
  options: { point: { x: number; y: number } | null; keep: number },
): Before {
  const s = counterAt(key) || install(key, options.keep);
  s.changed = [];
  s.nav = null;
  s.navEvent = null;
  s.handled = null;
  s.invalid = null;
  s.pressed = false;
  s.releases = 0;
  s.armed = true;
  s.action++;
  const at = options.point ? document.elementFromPoint(options.point.x, options.point.y) : null;
  s.pressHere = at !== null && !FRAME_TAGS.has(at.tagName);
  const active = focused();
  return {
    url: location.href,
    title: redactedTitle(),
    n: s.n,
    el: receiptElement(at) || undefined,
    hidden: document.visibilityState === "hidden",
    focus: active ? receiptElement(active) || undefined : undefined,
  };
}

/**
 * Everything a pointer action on the element with number `id` needs, in one visit: what it is,
 * where a pointer reaches it (scrolled to only when no point of it can be reached where it is: a
 * page that moves under a visible target would invalidate the model's screenshot), what a hit
 * test finds there when it is not the element, and the page before the action (as
 * {@linkcode observeBefore}, at that point).
 */
export function prepareAction(key: string, id: number, options: { keep: number }): Prepared {
  const el = byId(id);
  const aimed = el && isVisible(el) ? aim(id) : null;
  const described = describe(id);
  const point = aimed ? aimed.point : null;
  return {
    described,
    point,
    aimed: point !== null,
    ...(aimed?.tilted ? { tilted: true } : {}),
    around: aimed !== null && aimed.around,
    framed: point !== null && frameAt(point.x, point.y) !== null,
    cover: aimed ? aimed.hit : null,
    before: observeBefore(key, { point, keep: options.keep }),
  };
}

/**
 * The page after action number `action` (as its settle read began). That action is over: input
 * from here on is not its own, unless another action began since.
 */
function report(
  s: Counter | undefined,
  action: number,
  rendered: boolean,
  settled: boolean,
  busy = false,
): After {
  if (s && s.action === action) s.armed = false;
  const active = focused();
  const focus = active ? receiptElement(active) : null;
  const seen = new Set<string>();
  const changed: ReceiptElement[] = [];
  for (const el of (s && s.changed) || []) {
    if (changed.length >= 3) break;
    if (
      !el.isConnected || el === document.body || el === document.documentElement ||
      el.closest("head, script, style")
    ) continue;
    const d = receiptElement(el);
    const id = d && d.role + "|" + d.name;
    if (!d || !d.name || seen.has(id!)) continue;
    seen.add(id!);
    changed.push(d);
  }
  const invalid = s && s.invalid;
  const field = invalid && receiptElement(invalid);
  const refused = invalid && field
    ? { ...field, message: clip(redactFields(invalidity(invalid) ?? ""), MAX_INVALID_CHARS) }
    : null;
  return {
    url: location.href,
    title: redactedTitle(),
    n: s ? s.n : null,
    rendered,
    settled,
    ready: document.readyState,
    ...(refused ? { refused } : {}),
    changed,
    hidden: document.hidden,
    current: current(),
    ...(focus ? { focus } : {}),
    ...(s && leavingTo(s) ? { navigating: leavingTo(s)! } : {}),
    ...(busy ? { busy: true as const } : {}),
  };
}

/** Where the action's navigation goes, unless the page cancelled it (its own listener may). */
function leavingTo(s: Counter): string | null {
  return s.nav !== null && !(s.navEvent && s.navEvent.defaultPrevented) ? s.nav : null;
}

/** Whole frames without a mutation that a burst must also pass to count as over. */
const QUIET_FRAMES = 2;
/** How often a burst's end is looked for when the quiet window has passed but frames have not. */
const FRAME_MS = 16;

/**
 * Whether the frame after the action has passed with nothing changed since its handlers: a whole
 * frame rendered after the action's last input event (its animation-frame callbacks ran) and no
 * mutation came after that event's handlers, nor any later input.
 */
function quietSinceInput(s: Counter): boolean {
  const handled = s.handled;
  return handled !== null && handled.framed && handled.input === s.input && handled.n === s.n &&
    !leavingTo(s);
}

/**
 * Waits for what the action caused, and no longer: one animation frame (the action's effects
 * rendered), then, only if the page is still mutating after the action's own handlers ran, until
 * it goes `quietMs` without a mutation, at most `maxMs` in all. When the frame after the action's
 * input has already passed with no mutation since its handlers, that frame is the evidence and
 * the page is reported at once. A navigation to another document reports at once (the service
 * waits for the new page on the browser's events), as does a page sent to the background, which
 * renders no frames. `maxMs` 0 reports the page as it is now. `presses`: how many times the
 * action pressed and released a mouse button (see {@linkcode buttonsThenSettle}).
 */
export function settle(
  key: string,
  options: { quietMs: number; maxMs: number; presses?: number },
): Promise<After> {
  const s = counterAt(key);
  const action = s ? s.action : 0;
  if (options.maxMs <= 0) return Promise.resolve(report(s, action, false, true));
  const presses = options.presses ?? 0;
  if (presses === 0 || !s || !s.armed || !s.pressHere || released(s, presses) || gone(s)) {
    return settleFrom(s, action, options);
  }
  return buttonsThenSettle(s, action, presses, options);
}

/** Whether the action's presses, and the release of each of its `presses`, reached the window. */
function released(s: Counter, presses: number): boolean {
  return s.pressed && s.releases >= presses;
}

/**
 * Whether the action's press led away: to another document, or to the background (a tab opened
 * in front). Its release need not reach this window then, and the settle reports at once.
 */
function gone(s: Counter): boolean {
  return s.pressed && (leavingTo(s) !== null || document.hidden);
}

/**
 * For an action that pressed and released a button on this document's own content `presses`
 * times, whose last release has not reached the window yet: waits for it (within `maxMs`), then
 * settles in the time left. The browser answers each input event of the action before the page
 * has surely heard it: it answers a press it dropped as if delivered, and on a loaded machine it
 * answered a click's release while the page had heard only its press (the click's handler ran
 * after the read began). A press that never comes is reported lost (the browser dropped it, or
 * a listener the page put on its window first stopped it), and so is a release that never comes
 * after it; a navigation or the page going to the background ends the wait at once.
 */
function buttonsThenSettle(
  s: Counter,
  action: number,
  presses: number,
  options: { quietMs: number; maxMs: number },
): Promise<After> {
  const started = performance.now();
  return new Promise((resolve) => {
    const waiting = new AbortController();
    const signal = waiting.signal;
    const bound = setTimeout(() => {
      waiting.abort();
      const lost = s.pressed ? { releaseLost: true as const } : { pressLost: true as const };
      resolve({ ...report(s, action, false, true), ...lost });
    }, options.maxMs);
    const settleNow = (): void => {
      if (signal.aborted) return;
      waiting.abort();
      clearTimeout(bound);
      // After the event's own dispatch: the handlers of its release (a click's too) run first.
      setTimeout(() => {
        const left = Math.max(FRAME_MS, options.maxMs - (performance.now() - started));
        resolve(settleFrom(s, action, { quietMs: options.quietMs, maxMs: left }));
      }, 0);
    };
    // Heard after the counter's own listeners (added first): its counts already include it.
    const heard = (event: Event): void => {
      if (event.isTrusted && released(s, presses)) settleNow();
    };
    for (const type of [...PRESS_EVENTS, ...RELEASE_EVENTS]) {
      addEventListener(type, heard, { capture: true, passive: true, signal });
    }
    // Looked at after the event's dispatch: the page's own listener may cancel a navigation.
    const away = (): void => {
      setTimeout(() => gone(s) && settleNow(), 0);
    };
    document.addEventListener("visibilitychange", away, { signal });
    const navigation = (globalThis as unknown as { navigation?: EventTarget }).navigation;
    navigation?.addEventListener("navigate", away, { signal });
  });
}

/** The settle wait itself, for action number `action` of counter `s` (see {@linkcode settle}). */
function settleFrom(
  s: Counter | undefined,
  action: number,
  options: { quietMs: number; maxMs: number },
): Promise<After> {
  return new Promise((resolve) => {
    // Mutations the action's own handlers made are done by now; only later ones are a burst.
    const seen = s ? s.n : 0;
    let finished = false;
    let rendered = false;
    const listening = new AbortController();
    const done = (settled: boolean, busy = false): void => {
      if (finished) return;
      finished = true;
      clearTimeout(bound);
      listening.abort();
      resolve(report(s, action, rendered, settled, busy));
    };
    const bound = setTimeout(() => done(false, true), options.maxMs);
    // Frames rendered since the last mutation: on a starved machine a page that changes every
    // frame can still go `quietMs` of wall time without a change, but never a whole frame.
    let lastN = seen;
    let quietFrames = 0;
    const countFrames = (): void => {
      if (finished) return;
      if (s && s.n !== lastN) {
        lastN = s.n;
        quietFrames = 0;
      } else quietFrames++;
      requestAnimationFrame(countFrames);
    };
    const check = (): void => {
      if (finished) return;
      if (s && leavingTo(s)) return done(true);
      if (!s || s.n === seen) return done(true);
      const quietFor = performance.now() - s.t;
      if (quietFor >= options.quietMs && quietFrames >= QUIET_FRAMES) return done(true);
      // Look again when the window would close (or next frame), unless a mutation moves it.
      setTimeout(check, Math.max(FRAME_MS, options.quietMs - quietFor));
    };
    if (document.hidden) return done(false);
    if (s && quietSinceInput(s)) {
      rendered = true;
      return done(true);
    }
    const signal = listening.signal;
    document.addEventListener("visibilitychange", () => done(false), { once: true, signal });
    requestAnimationFrame(() => {
      rendered = true;
      requestAnimationFrame(countFrames);
      // After the frame's own callbacks and the tasks it released: one more turn.
      setTimeout(check, 0);
    });
    // A navigation that starts meanwhile ends the wait at once.
    if (s) {
      const navigation = (globalThis as unknown as { navigation?: EventTarget }).navigation;
      navigation?.addEventListener("navigate", () => setTimeout(check, 0), { signal });
    }
  });
}
