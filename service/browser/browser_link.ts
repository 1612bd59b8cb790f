/**
 * One attached browser: the link that carries commands to its extension and results back, with
 * its tabs' state. Tabs the model sees are composite numbers (browser slot × 2^32 + native tab
 * id) so several browsers can be attached at once.
 *
 * @module
 */

import {
  type Command,
  type EnableCommand,
  FromExtension,
  type NetworkRule,
  type OperationName,
  type OperationParams,
  type OperationResult,
  Operations,
  type TabInfo,
  TO_EXTENSION_MAX_FRAME,
} from "../../shared/browser_protocol.ts";
import { type ExtensionFeature, featureOf } from "../../shared/extension_features.ts";
import { type BoundedWriter, encodeFrame } from "../../shared/framing.ts";
import { ENABLE_COMMANDS, OBSERVED_EVENTS, Ring, TabState } from "./tab_state.ts";
import { BrowserError, dialogOpenError } from "./errors.ts";

/** How many commands may be in flight to one browser at once. */
const MAX_IN_FLIGHT = 64;
/** How long one browser operation may take before its outcome is unknown. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 30_000;
const SLOT_FACTOR = 2 ** 32;
/** CDP commands that need the page's renderer, which a JavaScript dialog blocks. */
const RENDERER_BOUND =
  /^(Runtime|DOM|DOMSnapshot|Input|Accessibility|CSS|Overlay)\.|^Page\.(captureScreenshot|createIsolatedWorld|getFrameTree|getLayoutMetrics|reload)$/;
/**
 * Renderer-bound commands that can themselves open a dialog (input reaches page handlers, a
 * reload runs the new page's scripts): their callers report the dialog, so they are not cut
 * short when one opens.
 */
const MAY_OPEN_DIALOG = /^Input\.|^Page\.reload$/;
/** Tab openings and closings remembered per browser, for tab deltas. */
const TAB_CHANGES_KEPT = 256;
/** Waiters for a tab change allowed at once; more resolve false at once. */
const MAX_CHANGE_WAITERS = 64;

/** A tab the browser opened or closed, numbered in the order the extension reported it. */
export interface TabChange {
  serial: number;
  kind: "opened" | "closed";
  native: number;
  opener?: number;
  active?: boolean;
}

/** Links whose extension did not number them, so far: each gets its own tag. */
let unnumberedLinks = 0;

/** A command of one executor generation, by its id there: what a quarantine waits to see end. */
export interface ExecutorCommand {
  /** The browser and its executor generation; a new generation means the old one ended. */
  executor: string;
  /** The command's id within that executor: its link's number and the id on that link. */
  command: string;
}

/** What a link reports of its commands' ends beyond their callers. */
export interface CommandReports {
  /** A command on a tab was cut off (link lost, timed out): it may still be running. */
  unknown(link: BrowserLink, native: number, command: ExecutorCommand): void;
  /** A command nobody waits for any more was answered on this link after all. */
  ended(command: ExecutorCommand): void;
}

/**
 * Where a tab stood when its extension last said (decision 0190): the tab as an answer's tail or
 * a `tab_location` carried it, and the serial of the message that did.
 */
export interface KnownLocation {
  tab: TabInfo;
  serial: number;
}

interface Pending {
  op: OperationName;
  /** The native tab the command touches, when it names one. */
  tab?: number;
  /** The tab whose dialog fails the command at once, when it needs that tab's renderer. */
  dialogTab?: number;
  /** The caller said the command has no effect on the page: cut off, it leaves nothing unknown. */
  noEffect?: boolean;
  resolve: (value: unknown) => void;
  reject: (error: BrowserError) => void;
  timer: ReturnType<typeof setTimeout>;
  /** Takes the replies a sequence sends ahead of its result (its `lead`, decision 0239). */
  ahead?: (results: Record<string, unknown>[]) => void;
}

/** Refuses, before it is sent, a command whose work is over (its `signal` aborted). */
function refuseEnded(op: OperationName, signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw new BrowserError("abandoned", `${op} was not sent: the work it was for is over`);
}

/** One attached browser. */
export class BrowserLink {
  readonly connectedAt = new Date();
  #writer: BoundedWriter;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;
  #tabs = new Map<number, TabState>();
  #observing = new Map<number, Promise<unknown>>();
  #changes = new Ring<TabChange>(TAB_CHANGES_KEPT);
  #changeSerial = 0;
  #changeWaiters = new Set<(change: TabChange | null) => void>();
  #reports: CommandReports | undefined;
  #enable: EnableCommand[];
  /** This link's number within its executor, as command ids are qualified. */
  #linkTag: string;
  /** Messages received that can tell where a tab stands (answers, `tab_location`), so far. */
  #serial = 0;
  /** Each reporting tab's latest known location; a tab not here is unknown (ask the browser). */
  #locations = new Map<number, KnownLocation>();
  /**
   * Each filtered tab's request filter as last set (so an unchanged one is not sent again), and
   * how to make it again when the policy changes.
   */
  #filters = new Map<number, { key: string; recompile: () => NetworkRule[] }>();

  constructor(
    readonly browserId: string,
    readonly slot: number,
    readonly details: {
      extensionVersion: string;
      userAgent: string;
      launchToken?: string;
      /** What the extension declared in its hello: nothing else is ever sent to it. */
      features: readonly ExtensionFeature[];
      /** Its executor generation (with the browser id), as the hub keys it. */
      executor: string;
      /** This link's number within that executor, when the extension said it. */
      executorLink?: number;
    },
    writer: BoundedWriter,
    options: {
      reports?: CommandReports;
      /** Commands sent after the observation's own on every attach (the tools' registrations). */
      enable?: readonly EnableCommand[];
    } = {},
  ) {
    this.#writer = writer;
    this.#reports = options.reports;
    this.#enable = [...ENABLE_COMMANDS, ...options.enable ?? []];
    // An extension that numbers no links gets a tag no other link shares: its commands' ids
    // start over with every link and must never prove another link's commands over.
    this.#linkTag = details.executorLink === undefined
      ? `unnumbered-${++unnumberedLinks}`
      : String(details.executorLink);
  }

  /** Command `id` of this link, as its executor knows it across links. */
  commandRef(id: number): ExecutorCommand {
    return { executor: this.details.executor, command: `${this.#linkTag}:${id}` };
  }

  /** True while the connection to this browser is open. */
  get connected(): boolean {
    return !this.#closed;
  }

  /**
   * Performs one operation in the browser, validating its result. A renderer-bound command is
   * refused at once while a JavaScript dialog is open, and fails with `dialog_open` as soon as
   * one opens while it waits, unless `ownDialogs` says the caller races dialogs itself.
   */
  async call<N extends OperationName>(
    op: N,
    params: OperationParams<N>,
    options: {
      timeoutMs?: number;
      ownDialogs?: boolean;
      /**
       * The command has no effect on the page (a look, a read in Ghostlight's own world): one not
       * answered in time fails `unanswered` and leaves its tab as it was known, not quarantined
       * (decision 0710). Never for a command that may change the page.
       */
      noEffect?: boolean;
      /** Takes a `cdp.sequence`'s lead replies, sent ahead of its result (decision 0239). */
      ahead?: (results: Record<string, unknown>[]) => void;
      /**
       * Aborted once the work the command is for is over (a read that lost a race to its call's
       * answer, decision 0760): a command not yet sent then is not sent (`abandoned`). One already
       * sent runs to its answer, which is still awaited.
       */
      signal?: AbortSignal;
    } = {},
  ): Promise<OperationResult<N>> {
    if (this.#closed) throw new BrowserError("not_sent", "the browser is not connected");
    this.#refuseUndeclared(op, params);
    refuseEnded(op, options.signal);
    let dialogWatch: number | undefined;
    if (op === "cdp" || op === "cdp.sequence" || op === "cdp.with_transfers") {
      const tabId = (params as { tab_id: number }).tab_id;
      await this.#observe(tabId);
      // The wait for the tab's observation may have outlasted the work the command is for.
      refuseEnded(op, options.signal);
      const methods = cdpMethods(params as OperationParams<CdpOperation>);
      this.#refuseWhileDialog(tabId, methods);
      this.#notePresses(tabId, params as OperationParams<CdpOperation>);
      const blocked = methods.some((method) => RENDERER_BOUND.test(method));
      const opens = methods.some((method) => MAY_OPEN_DIALOG.test(method));
      if (blocked && !opens && !options.ownDialogs) dialogWatch = tabId;
    }
    if (this.#pending.size >= MAX_IN_FLIGHT) {
      throw new BrowserError("busy", `the browser already has ${MAX_IN_FLIGHT} commands running`);
    }
    // From here on the extension may stop reporting the tab at any moment.
    if (op === "tab.release") {
      this.#locations.delete((params as { tab_id: number }).tab_id);
      // Releasing lifts the tab's filter.
      this.#filters.delete((params as { tab_id: number }).tab_id);
    }
    const id = this.#nextId++;
    const command: Command = { type: "command", id, op, params };
    const frame = encodeFrame(command, TO_EXTENSION_MAX_FRAME);
    const timeoutMs = options.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    const raw = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#cutOff(id, `the browser did not finish ${op} in ${timeoutMs} ms`, "timeout");
      }, timeoutMs);
      this.#pending.set(id, {
        op,
        tab: tabOf(params),
        dialogTab: dialogWatch,
        ...(options.noEffect ? { noEffect: true } : {}),
        resolve,
        reject,
        timer,
        ...(options.ahead ? { ahead: options.ahead } : {}),
      });
      this.#writer.write(frame).catch((error) => {
        // The frame did not reach the extension whole, so it cannot have run there.
        const reason = `could not send ${op} to the browser: ${(error as Error).message}`;
        this.#settle(id, (p) => p.reject(new BrowserError("not_sent", reason)));
      });
    });
    const parsed = Operations[op].result.safeParse(raw);
    if (!parsed.success) {
      throw new BrowserError("internal", `the extension answered ${op} with an unexpected shape`);
    }
    return parsed.data as OperationResult<N>;
  }

  /**
   * Refuses, before anything is sent, an operation whose feature the extension did not declare,
   * a sequence with a command sent after every earlier reply (`after_replies`), and a listing of
   * frames that asks for the held mark (`frame_holds`): an older extension refuses a parameter it
   * does not know.
   */
  #refuseUndeclared(op: OperationName, params: unknown): void {
    const commands = op === "cdp.sequence"
      ? (params as OperationParams<"cdp.sequence">).commands
      : [];
    const needed: ExtensionFeature[] = [
      ...(featureOf(op) ? [featureOf(op)!] : []),
      ...(commands.some((command) => command.afterReplies) ? ["after_replies" as const] : []),
      ...(commands.some((command) => command.sendIf || command.paramsFrom) ||
          (params as { lead?: number }).lead !== undefined
        ? ["reply_values" as const]
        : []),
      ...(op === "tab.frames" && (params as OperationParams<"tab.frames">).held !== undefined
        ? ["frame_holds" as const]
        : []),
    ];
    const feature = needed.find((name) => !this.details.features.includes(name));
    if (feature === undefined) return;
    throw new BrowserError(
      "needs_upgrade",
      `the installed extension (${this.details.extensionVersion}) does not support ${feature}`,
    );
  }

  /**
   * Starts observing a tab now, before any command touches it (a popup the workspace just
   * adopted), so its buffers cover its first requests.
   */
  observe(native: number): Promise<unknown> {
    return this.#observe(native);
  }

  /** Whether this service asked to observe the tab (the extension then follows what it opens). */
  observes(native: number): boolean {
    return this.#observing.has(native);
  }

  /**
   * Starts observing a tab the first time a command touches it, so console and network
   * buffers cover everything since then.
   */
  #observe(native: number): Promise<unknown> {
    let started = this.#observing.get(native);
    if (!started) {
      started = this.call("tab.observe", {
        tab_id: native,
        events: OBSERVED_EVENTS,
        enable: this.#enable,
        ...(this.details.features.includes("tab_locations") ? { locations: true } : {}),
      }).catch((error) => {
        this.#observing.delete(native);
        throw error;
      });
      this.#observing.set(native, started);
    }
    return started;
  }

  /** Remembers where pointer presses go, whatever tool sends them (recordings mark them). */
  #notePresses(tabId: number, params: OperationParams<CdpOperation>): void {
    const commands = "commands" in params ? params.commands : [params];
    for (const { method, params: event } of commands) {
      if (method !== "Input.dispatchMouseEvent" || event.type !== "mousePressed") continue;
      const [x, y] = [Number(event.x), Number(event.y)];
      if (Number.isFinite(x) && Number.isFinite(y)) {
        this.tab(tabId).presses.push({ at: Date.now(), x, y });
      }
    }
  }

  /**
   * A JavaScript dialog freezes the page's renderer: a command that needs it would hang until
   * the operation timeout. Refuse such commands at once, saying how to get out.
   */
  #refuseWhileDialog(tabId: number, methods: string[]): void {
    const dialog = this.#tabs.get(tabId)?.dialog;
    if (!dialog) return;
    if (!methods.some((method) => RENDERER_BOUND.test(method))) return;
    throw dialogOpenError(dialog);
  }

  /**
   * A dialog that opens while a renderer-bound command waits holds that command until someone
   * answers it: fail the command at once instead of waiting out its timeout. Found from the
   * command's own entry as the event arrives: a waiter per command cost an abort signal, a
   * timer and a listener on every read (decision 0217).
   */
  #failOnDialog(native: number): void {
    const dialog = this.#tabs.get(native)?.dialog;
    if (!dialog) return;
    for (const [id, pending] of [...this.#pending]) {
      if (pending.dialogTab === native) this.#settle(id, (p) => p.reject(dialogOpenError(dialog)));
    }
  }

  /** What the service knows about one of this browser's tabs from its events. */
  tab(native: number): TabState {
    let state = this.#tabs.get(native);
    if (!state) {
      state = new TabState();
      this.#tabs.set(native, state);
    }
    return state;
  }

  /** Routes one CDP event from the extension to its tab. */
  handleEvent(message: Extract<FromExtension, { type: "cdp_event" }>): void {
    if (!this.#observing.has(message.tab_id)) return;
    this.tab(message.tab_id).apply(
      { method: message.method, params: message.params },
      message.dropped ?? 0,
    );
    if (message.method === "Page.javascriptDialogOpening") this.#failOnDialog(message.tab_id);
  }

  /** Records a tab the browser opened. */
  tabOpened(native: number, opener: number | undefined, active: boolean): void {
    this.#changed({ serial: ++this.#changeSerial, kind: "opened", native, opener, active });
  }

  #changed(change: TabChange): void {
    this.#changes.push(change);
    for (const waiter of [...this.#changeWaiters]) waiter(change);
  }

  /**
   * Resolves true once a tab change after `serial` matches (at once if one already did), false
   * after `timeoutMs` or when the browser goes away: how an action learns of a tab it opened or
   * closed, from the browser's own report, without polling.
   */
  tabChangeAfter(
    serial: number,
    match: (change: TabChange) => boolean,
    timeoutMs: number,
  ): Promise<boolean> {
    if (this.tabChangesSince(serial).some(match)) return Promise.resolve(true);
    if (this.#closed || this.#changeWaiters.size >= MAX_CHANGE_WAITERS) {
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      const finish = (result: boolean): void => {
        clearTimeout(timer);
        this.#changeWaiters.delete(waiter);
        resolve(result);
      };
      const waiter = (change: TabChange | null): void => {
        if (change === null) finish(false);
        else if (match(change)) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.#changeWaiters.add(waiter);
    });
  }

  /**
   * Gives the tab this request filter (decision 0275) unless it has it already. False when the
   * extension cannot filter requests (it did not declare `network_rules`).
   */
  async filterRequests(native: number, recompile: () => NetworkRule[]): Promise<boolean> {
    if (!this.details.features.includes("network_rules")) return false;
    const rules = recompile();
    const key = JSON.stringify(rules);
    if (this.#filters.get(native)?.key === key) {
      this.#filters.set(native, { key, recompile });
      return true;
    }
    // Unknown until the browser answers: a failed change is sent again next time.
    this.#filters.delete(native);
    await this.call("tab.network_rules", { tab_id: native, rules });
    this.#filters.set(native, { key, recompile });
    return true;
  }

  /** Gives a tab its opener's request filter, when the opener has one. */
  async inheritFilter(opener: number, native: number): Promise<void> {
    const filter = this.#filters.get(opener);
    if (filter) await this.filterRequests(native, filter.recompile);
  }

  /**
   * Makes every filtered tab's filter again (the policy changed), without waiting for a call on
   * the tab. A tab whose filter cannot be made (too many hosts) blocks every request instead:
   * what it had may let through a host the new policy refuses.
   */
  async refilter(): Promise<void> {
    for (const [native, { recompile }] of [...this.#filters]) {
      let next = recompile;
      try {
        recompile();
      } catch {
        next = () => [{ priority: 1, action: "block", host: null, subdomains: true }];
      }
      await this.filterRequests(native, next).catch(() => {});
    }
  }

  /** Records a closed tab and forgets what was known about it. */
  tabClosed(native: number): void {
    this.#locations.delete(native);
    this.#filters.delete(native);
    this.#changed({ serial: ++this.#changeSerial, kind: "closed", native });
    this.#tabs.get(native)?.close();
    this.#tabs.delete(native);
    this.#observing.delete(native);
  }

  /** The serial of the latest tab change, to compare against later. */
  get tabChangeSerial(): number {
    return this.#changeSerial;
  }

  /** Tab changes after `serial`, oldest first (a bounded memory: very old ones are gone). */
  tabChangesSince(serial: number): TabChange[] {
    return this.#changes.items().filter((change) => change.serial > serial);
  }

  /** Routes one frame from the extension. */
  handleResult(message: Extract<FromExtension, { type: "result" }>): void {
    // An answer nobody waits for is a cut-off command's end (or a repeat): proof it is over.
    if (!this.#pending.has(message.id)) this.#reports?.ended(this.commandRef(message.id));
    const serial = ++this.#serial;
    this.#settle(message.id, (pending) => {
      if (pending.op === "tab.release" && pending.tab !== undefined) {
        this.#locations.delete(pending.tab);
      } else if (message.tab !== undefined && pending.tab === message.tab.tab_id) {
        this.#learnLocation(message.tab, serial);
      } else if (pending.tab !== undefined) this.#outdate(pending.tab);
      if (message.ok) pending.resolve(message.value);
      else pending.reject(new BrowserError(message.error.kind, message.error.message));
    });
  }

  /**
   * Hands a running sequence's lead replies to its caller; once only, and never after its
   * result (a lead for a command nobody waits for is dropped).
   */
  handleLead(message: Extract<FromExtension, { type: "sequence_lead" }>): void {
    const pending = this.#pending.get(message.id);
    if (!pending?.ahead) return;
    const ahead = pending.ahead;
    delete pending.ahead;
    ahead(message.results);
  }

  /** Notes where a reporting tab stands now, as the extension sent it on its own. */
  handleLocation(message: Extract<FromExtension, { type: "tab_location" }>): void {
    const serial = ++this.#serial;
    if (message.tab === undefined || message.tab.tab_id !== message.tab_id) {
      this.#locations.delete(message.tab_id);
    } else this.#learnLocation(message.tab, serial);
  }

  #learnLocation(tab: TabInfo, serial: number): void {
    // Only an extension that declared the feature reports locations, and only when asked.
    if (!this.details.features.includes("tab_locations") || this.#closed) return;
    this.#locations.set(tab.tab_id, { tab, serial });
  }

  /**
   * An answer without a tail (or a cut-off command) came after what is known of the tab: it
   * stays the best guess before a call, but no longer tells where a call left the tab.
   */
  #outdate(native: number): void {
    const known = this.#locations.get(native);
    if (known) known.serial = 0;
  }

  /** The serial of the latest message received that can tell where a tab stands. */
  get locationSerial(): number {
    return this.#serial;
  }

  /**
   * Where the tab stood when its extension last said, or undefined when it is not known (the
   * tab does not report it, was released or closed, or the link is gone): then ask the browser.
   */
  knownLocation(native: number): KnownLocation | undefined {
    return this.#locations.get(native);
  }

  /**
   * Where the tab stands after a call, when a message received after `serial` (the call's start)
   * said so and no answer to a command naming the tab came after that message: the look is then
   * as fresh as asking the browser would be (decision 0190). Undefined otherwise: ask.
   */
  locationSince(native: number, serial: number): TabInfo | undefined {
    const known = this.#locations.get(native);
    return known !== undefined && known.serial > serial ? known.tab : undefined;
  }

  /**
   * Where the tab stands after a call that began at `serial`: as the extension said it since
   * (`locationSince`), else as the browser answers now.
   */
  tabSince(native: number, serial: number): Promise<TabInfo> {
    const known = this.locationSince(native, serial);
    return known ? Promise.resolve(known) : this.call("tab.get", { tab_id: native });
  }

  #settle(id: number, action: (pending: Pending) => void): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    action(pending);
  }

  /**
   * Ends a pending command whose outcome is unknown: its caller is told it may have happened,
   * and its tab is reported, so nothing new reaches that tab until the command is proven over.
   * A command with no effect on the page leaves nothing of its tab unknown: its caller is told
   * it went unanswered (when it timed out), and its tab is neither reported nor made stale.
   */
  #cutOff(id: number, reason: string, kind: "timeout" | "disconnected"): void {
    this.#settle(id, (pending) => {
      if (pending.noEffect) {
        pending.reject(new BrowserError(kind === "timeout" ? "unanswered" : kind, reason));
        return;
      }
      if (pending.tab !== undefined) {
        // It may still move the tab: what was known of it is no fresher than this.
        this.#outdate(pending.tab);
        this.#reports?.unknown(this, pending.tab, this.commandRef(id));
      }
      pending.reject(new BrowserError(kind, reason));
    });
  }

  /** Ends every pending command: they may have happened. */
  close(): void {
    this.#closed = true;
    this.#locations.clear();
    for (const waiter of [...this.#changeWaiters]) waiter(null);
    for (const state of this.#tabs.values()) state.close();
    for (const [id, pending] of [...this.#pending]) {
      this.#cutOff(
        id,
        `the connection to the browser closed while ${pending.op} ran (Chromium, the ` +
          "extension's service worker or its native host stopped)",
        "disconnected",
      );
    }
  }

  /** The model-facing id of one of this browser's tabs. */
  compose(nativeTabId: number): number {
    return this.slot * SLOT_FACTOR + nativeTabId;
  }
}

/** The native tab a command's params name, if any. */
function tabOf(params: unknown): number | undefined {
  const tab = (params as { tab_id?: unknown }).tab_id;
  return typeof tab === "number" ? tab : undefined;
}

/** The operations that send CDP commands to a tab. */
type CdpOperation = "cdp" | "cdp.sequence" | "cdp.with_transfers";

/** The CDP methods a CDP operation sends. */
function cdpMethods(params: OperationParams<CdpOperation>): string[] {
  return "commands" in params ? params.commands.map((command) => command.method) : [params.method];
}

/** Splits a model-facing tab id into browser slot and native tab id. */
export function decomposeTabId(tabId: number): { slot: number; native: number } | null {
  if (!Number.isSafeInteger(tabId) || tabId < 0) return null;
  return { slot: Math.floor(tabId / SLOT_FACTOR), native: tabId % SLOT_FACTOR };
}
