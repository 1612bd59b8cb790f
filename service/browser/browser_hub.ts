/**
 * The browsers attached through browser connectors, by slot: admitting a link, routing what it
 * reports, and handing the person's requests from the extension to the service.
 *
 * @module
 */

import {
  type EnableCommand,
  FROM_EXTENSION_MAX_FRAME,
  FromExtension,
  type PersonReply,
  TO_EXTENSION_MAX_FRAME,
} from "../../shared/browser_protocol.ts";
import { type BoundedWriter, encodeFrame, type FrameReader } from "../../shared/framing.ts";
import { knownFeatures } from "../../shared/extension_features.ts";
import { log } from "../log/mod.ts";
import { BrowserLink, type CommandReports, type ExecutorCommand } from "./browser_link.ts";

/** Browser ids whose slot is remembered; the longest-detached ones are forgotten beyond this. */
export const MAX_KNOWN_BROWSERS = 64;

/** Listeners for what browsers report on their own. */
export interface BrowserEvents {
  tabRemoved(link: BrowserLink, nativeTabId: number): void;
  /** A tab appeared; `opener` is the native tab whose page opened it, if any. */
  tabCreated?(link: BrowserLink, nativeTabId: number, opener: number | undefined): void;
  /**
   * The browser that had `slot` restarted: none of its tabs exists any more. Called before its
   * new link (in a new slot) is published, so no call can reach a tab by an old id.
   */
  browserRestarted?(slot: number): void;
  /** A command on one of `link`'s tabs was cut off with its outcome unknown. */
  commandUnknown?(link: BrowserLink, nativeTabId: number, command: ExecutorCommand): void;
  /** The executor proved a command over: its late answer or its terminal acknowledgement. */
  commandEnded?(command: ExecutorCommand): void;
  /**
   * An executor generation ended (its service worker or its browser restarted): every command
   * it ran is over.
   */
  executorEnded?(executor: string): void;
}

/**
 * Answers what the person asks from a browser (the popup, a shortcut): a request as the
 * extension sent it, to be checked, and the answer to send back.
 */
export type PersonHandler = (request: unknown) => Promise<Record<string, unknown>>;

/** All attached browsers, with slots that stay stable for a browser id while the service runs. */
export class BrowserHub {
  #links = new Map<string, BrowserLink>();
  #person: PersonHandler | null = null;
  /** Slots by browser id, least recently attached first; never reused for another browser. */
  #slots = new Map<string, number>();
  #nextSlot = 0;
  #events: BrowserEvents[] = [];
  /** The run each browser id last said hello from, to tell a restart from a reconnection. */
  #runs = new Map<string, string>();
  /** The executor each browser id last said hello from, to tell a new generation. */
  #executors = new Map<string, string>();
  /** How to end each link's connection, for a link that another connection replaces. */
  #hangUps = new WeakMap<BrowserLink, () => void>();
  #enable: readonly EnableCommand[];

  /**
   * `enable`: CDP commands every link sends, after observation's own, on each attach to a tab
   * it observes (the service's tools decide them; the extension only replays them).
   */
  constructor(options: { enable?: readonly EnableCommand[] } = {}) {
    this.#enable = options.enable ?? [];
  }

  /** Sets who answers the person's requests from browsers. */
  onPerson(handler: PersonHandler): void {
    this.#person = handler;
  }

  /** Subscribes to browser events. */
  onEvents(events: BrowserEvents): void {
    this.#events.push(events);
  }

  /** The browsers attached now, most recent last. */
  list(): BrowserLink[] {
    return [...this.#links.values()];
  }

  /** The browser new work goes to: the one that attached most recently. */
  pick(): BrowserLink | undefined {
    return this.list().at(-1);
  }

  /** The browser in `slot`, if attached. */
  bySlot(slot: number): BrowserLink | undefined {
    return this.list().find((link) => link.slot === slot);
  }

  /**
   * Serves one browser connector after its hello: waits for the extension's hello, then routes
   * results until the connection ends.
   */
  async serve(reader: FrameReader, writer: BoundedWriter): Promise<void> {
    let link: BrowserLink | null = null;
    try {
      while (true) {
        const raw = await reader.next(FROM_EXTENSION_MAX_FRAME);
        if (raw === null) break;
        const parsed = FromExtension.safeParse(raw);
        if (!parsed.success) {
          log("warn", "browser sent a malformed message; closing its link");
          break;
        }
        const message = parsed.data;
        if (message.type === "hello") {
          // A second hello on this connection replaces the first link entirely.
          if (link) this.#detach(link);
          link = this.#attach(message, writer);
          this.#hangUps.set(link, () => reader.cancel());
        } else if (link === null) {
          log("warn", "browser sent a message before its hello; closing its link");
          break;
        } else if (message.type === "result") {
          link.handleResult(message);
        } else if (message.type === "sequence_lead") {
          link.handleLead(message);
        } else if (message.type === "cdp_event") {
          link.handleEvent(message);
        } else if (message.type === "tab_location") {
          link.handleLocation(message);
        } else if (message.type === "tab_created") {
          link.tabOpened(message.tab_id, message.opener_tab_id, message.active);
          for (const events of this.#events) {
            events.tabCreated?.(link, message.tab_id, message.opener_tab_id);
          }
        } else if (message.type === "ended") {
          this.#ended(link, message);
        } else if (message.type === "person") {
          this.#answerPerson(message.id, message.request, writer);
        } else {
          link.tabClosed(message.tab_id);
          for (const events of this.#events) events.tabRemoved(link, message.tab_id);
        }
      }
    } catch (error) {
      log("warn", `browser link failed: ${(error as Error).message}`);
    } finally {
      if (link) this.#detach(link);
    }
  }

  /** Answers one person request in the background; the link keeps reading meanwhile. */
  #answerPerson(id: number, request: unknown, writer: BoundedWriter): void {
    const handler = this.#person;
    const answered = handler === null
      ? Promise.resolve({ ok: false, message: "this service takes no requests from browsers" })
      : handler(request).catch((error) => ({ ok: false, message: (error as Error).message }));
    answered.then((answer) => {
      const reply: PersonReply = { type: "person_reply", id, answer };
      return writer.write(encodeFrame(reply, TO_EXTENSION_MAX_FRAME));
    }).catch((error) => log("warn", `could not answer the browser: ${error.message}`));
  }

  #attach(hello: Extract<FromExtension, { type: "hello" }>, writer: BoundedWriter): BrowserLink {
    const id = hello.browser_id;
    let slot = this.#slots.get(id);
    this.#slots.delete(id);
    const restarted = slot !== undefined && this.#restarted(hello);
    if (restarted) {
      // Its old tab ids must never reach a new tab that happens to get the same native id.
      for (const events of this.#events) events.browserRestarted?.(slot!);
      log("info", `the browser in slot ${slot} restarted; its old tabs are forgotten`);
    }
    if (slot === undefined || restarted) {
      slot = this.#nextSlot++;
      this.#forgetDetached();
    }
    this.#slots.set(id, slot);
    if (hello.browser_run !== undefined) this.#runs.set(id, hello.browser_run);
    const replaced = this.#links.get(id);
    if (replaced) {
      // The same browser on a new connection: the old one is dead to us, so it is closed too.
      replaced.close();
      this.#hangUps.get(replaced)?.();
    }
    const executor = this.#newExecutor(hello);
    const link = new BrowserLink(
      id,
      slot,
      {
        extensionVersion: hello.extension_version,
        userAgent: hello.user_agent,
        launchToken: hello.launch_token,
        features: knownFeatures(hello.features),
        executor,
        executorLink: hello.executor?.link,
      },
      writer,
      { reports: this.#reports, enable: this.#enable },
    );
    this.#links.set(id, link);
    log("info", `browser attached in slot ${slot} (extension ${hello.extension_version})`, {
      event: "browser_attached",
      slot,
      extension: hello.extension_version,
    });
    return link;
  }

  /**
   * The executor `hello` speaks for; when it is not the one this browser id spoke from before,
   * the old one ended (a service worker restart, or the browser's), and every command it ran is
   * over.
   */
  #newExecutor(hello: Extract<FromExtension, { type: "hello" }>): string {
    const executor = executorKey(
      hello.browser_id,
      hello.executor?.generation ?? `run:${hello.browser_run ?? ""}`,
    );
    const before = this.#executors.get(hello.browser_id);
    this.#executors.set(hello.browser_id, executor);
    if (before !== undefined && before !== executor) {
      log(
        "info",
        `the extension's executor for slot ${this.#slots.get(hello.browser_id)} restarted`,
      );
      for (const events of this.#events) events.executorEnded?.(before);
    }
    return executor;
  }

  /** What links report of their commands' ends, passed on to the listeners. */
  #reports: CommandReports = {
    unknown: (link, native, command) => {
      for (const events of this.#events) events.commandUnknown?.(link, native, command);
    },
    ended: (command) => {
      for (const events of this.#events) events.commandEnded?.(command);
    },
  };

  /**
   * Passes on an executor's terminal acknowledgement of a command of an earlier link. One that
   * names this link or a later one is not a proof (the extension acknowledges earlier links
   * only), and must not be remembered as one before that command exists.
   */
  #ended(link: BrowserLink, ended: Extract<FromExtension, { type: "ended" }>): void {
    const executor = executorKey(link.browserId, ended.generation);
    const current = link.details.executorLink;
    if (executor === link.details.executor && current !== undefined && ended.link >= current) {
      log("warn", "the extension acknowledged a command of a link not yet over; ignored");
      return;
    }
    const command = `${ended.link}:${ended.id}`;
    for (const events of this.#events) events.commandEnded?.({ executor, command });
  }

  /** Whether `hello` comes from a new run of a browser this hub knew from an earlier run. */
  #restarted(hello: Extract<FromExtension, { type: "hello" }>): boolean {
    const before = this.#runs.get(hello.browser_id);
    return before !== undefined && hello.browser_run !== undefined &&
      before !== hello.browser_run;
  }

  /** Keeps the slot memory bounded by forgetting browsers detached longest ago. */
  #forgetDetached(): void {
    for (const browserId of this.#slots.keys()) {
      if (this.#slots.size < MAX_KNOWN_BROWSERS) return;
      if (this.#links.has(browserId)) continue;
      this.#slots.delete(browserId);
      this.#runs.delete(browserId);
      this.#executors.delete(browserId);
    }
  }

  /** How many browser ids have a remembered slot (bounded by MAX_KNOWN_BROWSERS). */
  get knownBrowsers(): number {
    return this.#slots.size;
  }

  #detach(link: BrowserLink): void {
    link.close();
    if (this.#links.get(link.browserId) === link) {
      this.#links.delete(link.browserId);
      log("info", `browser in slot ${link.slot} detached`);
    }
  }
}

/**
 * One executor generation of one browser. An extension that says no generation is keyed by its
 * browser run: only a browser restart then proves its commands ended.
 */
function executorKey(browserId: string, generation: string): string {
  return `${browserId}/${generation}`;
}
