/**
 * The floor: the same journey done directly over CDP from Deno, with no MCP, no server and no
 * extension between the bench and Chromium. It knows the script (which click navigates), keeps
 * its refs in a page-side array, reads with one page-side walk and answers nothing a model would
 * read, so it is what the browser itself needs for each step, not a competitor.
 *
 * Chromium listens on 127.0.0.1 only, on a port it picks (`--remote-debugging-port=0`).
 *
 * @module
 */

import { signalOrTimeout, within } from "../support/wait.ts";
import type { Answer, Driver } from "./journey.ts";
import { STEP_MS } from "./journey.ts";
import { CHROMIUM, type RunningPeer } from "./mcp_peers.ts";
import { reap } from "./processes.ts";

type Message = {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { message: string };
};

/** A CDP connection over a WebSocket on 127.0.0.1. */
class Cdp {
  #socket: WebSocket;
  #next = 1;
  #pending = new Map<
    number,
    { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  #listeners = new Set<(message: Message) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as Message;
      if (message.id !== undefined) {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error) pending?.reject(new Error(message.error.message));
        else pending?.resolve(message.result ?? {});
        return;
      }
      for (const listener of this.#listeners) listener(message);
    };
    socket.onclose = () => {
      for (const pending of this.#pending.values()) pending.reject(new Error("CDP closed"));
      this.#pending.clear();
    };
  }

  static async open(url: string): Promise<Cdp> {
    const socket = new WebSocket(url);
    const opened = new AbortController();
    socket.onopen = () => opened.abort();
    socket.onerror = () => opened.abort();
    if (!(await signalOrTimeout(opened.signal, 30_000)) || socket.readyState !== WebSocket.OPEN) {
      socket.close();
      throw new Error(`could not open the CDP socket ${url}`);
    }
    return new Cdp(socket);
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(
        JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }),
      );
    });
  }

  /** Resolves at the next `method` event of `sessionId`; subscribe before causing it. */
  next(method: string, sessionId: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      const listener = (message: Message) => {
        if (message.method !== method || message.sessionId !== sessionId) return;
        this.#listeners.delete(listener);
        resolve(message.params ?? {});
      };
      this.#listeners.add(listener);
    });
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * The page-side half of the floor, installed in every document: a walk that lists roles, names
 * and refs (through open shadow roots and same-origin frames), and the element operations.
 */
const PAGE_HELPERS = String.raw`(() => {
  if (window.__floor) return;
  const refs = [];
  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit;
    const tag = el.localName;
    if (tag === "button") return "button";
    if (tag === "a" && el.hasAttribute("href")) return "link";
    if (tag === "select") return "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "iframe") return "iframe";
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "section" && el.hasAttribute("aria-label")) return "region";
    if (tag === "input") {
      const type = el.type;
      if (type === "hidden") return null;
      if (type === "checkbox" || type === "radio") return type;
      if (type === "number") return "spinbutton";
      if (type === "submit" || type === "button") return "button";
      return "textbox";
    }
    return null;
  };
  const nameOf = (el) => {
    const aria = el.getAttribute("aria-label");
    if (aria) return aria;
    if (el.localName === "iframe") return el.title || "";
    // Only form controls have labels: the labels getter searches the document, so asking a
    // button for them would make a page of 3,000 buttons quadratic.
    if (el.localName === "input" || el.localName === "select" || el.localName === "textarea") {
      return el.labels && el.labels.length ? el.labels[0].textContent.trim() : el.placeholder || "";
    }
    return el.textContent.trim().replace(/\s+/g, " ").slice(0, 100);
  };
  const LEAF = new Set(["button", "link", "heading", "textbox", "combobox", "checkbox", "radio", "spinbutton"]);
  const walk = (root, depth, out) => {
    for (const el of root.children) {
      if (el.localName === "script" || el.localName === "style" || el.hidden) continue;
      const role = roleOf(el);
      let inner = depth;
      if (role) {
        refs.push(el);
        out.push("  ".repeat(depth) + role + ' "' + nameOf(el) + '" [f' + (refs.length - 1) + "]");
        inner = depth + 1;
        if (LEAF.has(role)) continue;
      } else if (el.children.length === 0 && el.textContent.trim()) {
        out.push("  ".repeat(depth) + 'text "' + el.textContent.trim().slice(0, 200) + '"');
      }
      if (el.shadowRoot) walk(el.shadowRoot, inner, out);
      if (el.localName === "iframe") {
        try {
          if (el.contentDocument && el.contentDocument.body) walk(el.contentDocument.body, inner, out);
        } catch {}
      }
      walk(el, inner, out);
    }
  };
  const setValue = (el, value) => {
    const proto = el.localName === "textarea" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    el.focus();
    Object.getOwnPropertyDescriptor(proto, "value").set.call(el, value);
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  };
  const fill = (i, value) => {
    const el = refs[i];
    if (el.type === "checkbox") {
      if (el.checked !== (value === true || value === "true")) el.click();
    } else if (el.localName === "select") {
      const option = [...el.options].find((o) => o.text === value || o.value === value);
      el.value = option ? option.value : value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
    } else {
      setValue(el, String(value));
    }
    return el.type === "checkbox" ? String(el.checked) : el.value;
  };
  window.__floor = {
    read() {
      refs.length = 0;
      const out = [];
      walk(document.body, 0, out);
      return out.join("\n");
    },
    center(i) {
      const el = refs[i];
      const rect = () => {
        let r = el.getBoundingClientRect();
        let x = r.left + r.width / 2;
        let y = r.top + r.height / 2;
        for (let w = el.ownerDocument.defaultView; w && w.frameElement; w = w.parent) {
          const f = w.frameElement.getBoundingClientRect();
          x += f.left + w.frameElement.clientLeft;
          y += f.top + w.frameElement.clientTop;
        }
        return { x, y, inside: y >= 0 && y <= innerHeight && x >= 0 && x <= innerWidth };
      };
      let at = rect();
      if (!at.inside) {
        el.scrollIntoView({ block: "center", inline: "center" });
        at = rect();
      }
      return { x: at.x, y: at.y };
    },
    fill,
    fillMany(pairs) {
      return pairs.map(([i, v]) => fill(i, v));
    },
    text() {
      return document.body.innerText;
    },
    find(query) {
      const match = refs.find((el) => el.localName === "button" && el.textContent.trim() === query) ||
        [...document.querySelectorAll("button")].find((el) => el.textContent.trim() === query);
      return match ? 'button "' + match.textContent.trim() + '"' : "";
    },
  };
})()`;

function textAnswer(text: string): Answer {
  return { text, textChars: text.length, imageChars: 0, images: [], isError: false };
}

/** Launches Chromium with CDP on 127.0.0.1 and the flags Ghostlight's own launch uses. */
export async function startCdpFloor(): Promise<RunningPeer> {
  const root = await Deno.makeTempDir({ prefix: "ghostlight-bench-cdp-" });
  const child = new Deno.Command(CHROMIUM, {
    args: [
      `--user-data-dir=${root}/profile`,
      "--remote-debugging-port=0",
      "--remote-debugging-address=127.0.0.1",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--window-size=1280,800",
      "--headless",
      "--disable-gpu",
      ...(Deno.uid() === 0 ? ["--no-sandbox"] : []),
      "about:blank",
    ],
    env: { XDG_CONFIG_HOME: `${root}/xdg-config`, XDG_CACHE_HOME: `${root}/xdg-cache` },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let cdp: Cdp | null = null;
  const stop = async () => {
    cdp?.close();
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    const exited = new AbortController();
    child.status.then(() => exited.abort());
    if (!(await signalOrTimeout(exited.signal, 10_000))) await reap([child.pid], 0);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  try {
    const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    const endpoint = await within(
      (async () => {
        while (true) {
          const { value, done } = await lines.read();
          if (done) throw new Error(`Chromium exited before listening: ${seen.slice(-1_000)}`);
          seen += value;
          const match = seen.match(/DevTools listening on (ws:\/\/\S+)/);
          if (match) return match[1];
        }
      })(),
      60_000,
      "Chromium's DevTools endpoint",
    );
    (async () => {
      while (!(await lines.read()).done) { /* drain */ }
    })().catch(() => {});
    if (new URL(endpoint).hostname !== "127.0.0.1") {
      throw new Error(`Chromium listens on ${endpoint}, not on 127.0.0.1`);
    }
    cdp = await Cdp.open(endpoint);
    const c = cdp;
    const { targetInfos } = await c.send("Target.getTargets") as {
      targetInfos: { targetId: string; type: string }[];
    };
    const page = targetInfos.find((t) => t.type === "page");
    if (!page) throw new Error("Chromium has no page target");
    const { sessionId } = await c.send("Target.attachToTarget", {
      targetId: page.targetId,
      flatten: true,
    }) as { sessionId: string };
    const send = (method: string, params: Record<string, unknown> = {}) =>
      c.send(method, params, sessionId);
    await send("Page.enable");
    await send("Page.addScriptToEvaluateOnNewDocument", { source: PAGE_HELPERS });
    await send("Runtime.evaluate", { expression: PAGE_HELPERS });

    const evaluate = async (expression: string): Promise<unknown> => {
      const reply = await send("Runtime.evaluate", { expression, returnByValue: true }) as {
        result: { value?: unknown };
        exceptionDetails?: { text: string; exception?: { description?: string } };
      };
      if (reply.exceptionDetails) {
        const details = reply.exceptionDetails;
        throw new Error(details.exception?.description ?? details.text);
      }
      return reply.result.value;
    };
    const loaded = async (cause: () => Promise<unknown>) => {
      const load = c.next("Page.loadEventFired", sessionId);
      await cause();
      await within(load, STEP_MS, "the load event");
    };
    const click = async (ref: string) => {
      const { x, y } = await evaluate(`__floor.center(${ref.slice(1)})`) as {
        x: number;
        y: number;
      };
      await Promise.all([
        send("Input.dispatchMouseEvent", { type: "mouseMoved", x, y }),
        send("Input.dispatchMouseEvent", {
          type: "mousePressed",
          x,
          y,
          button: "left",
          clickCount: 1,
        }),
        send("Input.dispatchMouseEvent", {
          type: "mouseReleased",
          x,
          y,
          button: "left",
          clickCount: 1,
        }),
      ]);
    };
    const driver: Driver = {
      async navigate(url) {
        await loaded(() => send("Page.navigate", { url }));
        return textAnswer("");
      },
      read: async () => textAnswer(await evaluate("__floor.read()") as string),
      readText: async () => textAnswer(await evaluate("__floor.text()") as string),
      async click(target, navigates) {
        if (navigates) await loaded(() => click(target.ref));
        else await click(target.ref);
        return textAnswer("");
      },
      async type(_target, text) {
        await send("Input.insertText", { text });
        return textAnswer("");
      },
      async fill(target, field) {
        await evaluate(`__floor.fill(${target.ref.slice(1)}, ${JSON.stringify(field.value)})`);
        return textAnswer("");
      },
      async screenshot() {
        const { data } = await send("Page.captureScreenshot", { format: "png" }) as {
          data: string;
        };
        return {
          ...textAnswer(""),
          imageChars: data.length,
          images: [{ mimeType: "image/png", data }],
        };
      },
      probe: async (expression) => String(await evaluate(expression)),
      find: async (query) =>
        textAnswer(await evaluate(`__floor.find(${JSON.stringify(query)})`) as string),
      async fillAll(fields) {
        const pairs = fields.map(({ target, field }) => [Number(target.ref.slice(1)), field.value]);
        await evaluate(`__floor.fillMany(${JSON.stringify(pairs)})`);
        return textAnswer("");
      },
      refOf: (answer, role, label) =>
        answer.text.match(
          new RegExp(`\\b${role} "${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}" \\[(f\\d+)\\]`),
        )?.[1] ?? null,
    };
    return { driver, tools: { count: 0, chars: 0, names: [] }, call: null, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
