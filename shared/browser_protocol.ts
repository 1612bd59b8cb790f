/**
 * The vocabulary between the service and the extension. The browser connector relays these
 * frames without reading them; the service and the extension validate them. The extension only
 * executes mechanism: every decision is the service's.
 *
 * @module
 */

import { z } from "zod";
import { MAX_TRANSFERS_PER_COMMAND, TransferChunk, TransferId } from "./transfer.ts";

/** Chrome refuses native messages to an extension over 1 MiB. */
export const TO_EXTENSION_MAX_FRAME = 1024 * 1024;
/** Chrome allows up to 64 MiB from the extension. */
export const FROM_EXTENSION_MAX_FRAME = 64 * 1024 * 1024;

/** Colours Chrome allows for tab groups. */
export const GroupColor = z.enum([
  "grey",
  "blue",
  "red",
  "yellow",
  "green",
  "pink",
  "purple",
  "cyan",
  "orange",
]);
export type GroupColor = z.infer<typeof GroupColor>;

const TabId = z.number().int().nonnegative();

/** A tab as the extension reports it (native ids; the service composes model-facing ids). */
export const TabInfo = z.object({
  tab_id: TabId,
  window_id: z.number().int(),
  group_id: z.number().int(),
  url: z.string(),
  /** Where the tab is navigating to, while a navigation is pending. */
  pending_url: z.string().optional(),
  title: z.string(),
  status: z.string(),
  active: z.boolean(),
}).strict();
export type TabInfo = z.infer<typeof TabInfo>;

const CdpMethod = z.string().regex(/^[A-Z][A-Za-z]+\.[a-zA-Z]+$/);

/** Most commands in one `cdp.sequence`. */
export const MAX_SEQUENCE = 4096;
/** Most event kinds one tab forwards. */
export const MAX_OBSERVED_EVENTS = 32;
/** Window sides `window.resize` accepts, in pixels. */
export const MIN_WINDOW_SIDE = 200;
export const MAX_WINDOW_SIDE = 8192;
/** Events one tab may forward per second; beyond it they are dropped and counted. */
export const EVENTS_PER_SECOND = 200;
/**
 * Events forwarded even when a tab's rate bound is spent (decision 0211): a JavaScript dialog
 * blocks its page until it is answered, so they come one at a time, and the service can neither
 * answer nor report a dialog it never heard of.
 */
export const NEVER_DROPPED_EVENTS: readonly string[] = [
  "Page.javascriptDialogOpening",
  "Page.javascriptDialogClosed",
];
/**
 * The events of a tab's console: a page that logs faster than the extension can drop them has its
 * console no longer listened to for a while (decision 0291).
 */
export const CONSOLE_EVENTS: readonly string[] = [
  "Runtime.consoleAPICalled",
  "Runtime.exceptionThrown",
  "Log.entryAdded",
];
/**
 * Not a CDP event: the extension's word that it stopped (`paused: true`) or started again
 * listening to a tab's console, with when (`at`, ms since the epoch), sent as an event of the tab
 * so that a service that does not know it passes it by (decision 0291).
 */
export const CONSOLE_PAUSED_EVENT = "Ghostlight.consolePaused";
/**
 * Not a CDP event: the same word for a tab's network events (`Network.*`), which a page sending
 * requests faster than the extension can drop their events has paused the same way (decision
 * 0340).
 */
export const NETWORK_PAUSED_EVENT = "Ghostlight.networkPaused";
/** Longest string inside a forwarded event; longer ones are cut. */
export const EVENT_STRING_MAX = 2000;

/** One kind of CDP event a tab forwards, and the parts of its params worth sending. */
export const ObservedEvent = z.object({
  method: CdpMethod,
  /** Dotted paths into params to keep (e.g. "request.url"); absent keeps all (still clipped). */
  fields: z.array(z.string().max(100)).max(32).optional(),
}).strict();
export type ObservedEvent = z.infer<typeof ObservedEvent>;

/** Most enable commands one `tab.observe` may ask for. */
export const MAX_ENABLE_COMMANDS = 16;

/**
 * A CDP command the extension sends on every debugger attachment to an observed tab: turning a
 * domain on, or registering a script for every new document.
 */
export const EnableCommand = z.object({
  method: CdpMethod,
  params: z.record(z.string(), z.unknown()),
}).strict();
export type EnableCommand = z.infer<typeof EnableCommand>;

/** Most values of earlier replies one sequence command may test or take. */
export const MAX_REPLY_VALUES = 8;

/**
 * A value in an earlier reply of the same `cdp.sequence`: `reply` commands back (1 is the one
 * just before), then `path` through the reply's objects.
 */
const ReplyValue = z.object({
  reply: z.number().int().min(1).max(MAX_SEQUENCE),
  path: z.array(z.string().max(64)).min(1).max(8),
}).strict();

/**
 * Where a `paramsFrom` value goes in the command's params: a name, or a dotted path of up to four
 * names into objects of the params (made where missing), such as `clip.x` (decision 0242).
 */
const PARAM_PATH = z.string().max(128).regex(/^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*){0,3}$/);

/**
 * A test of an earlier reply's value: that it `equals` a number, string or boolean, or that it is
 * a list none of whose entries has its `field` among `values` (`lacks`).
 */
const ReplyTest = z.union([
  ReplyValue.extend({ equals: z.union([z.string().max(200), z.number(), z.boolean()]) }).strict(),
  ReplyValue.extend({
    lacks: z.object({
      field: z.string().min(1).max(64),
      values: z.array(z.string().max(64)).min(1).max(16),
    }).strict(),
  }).strict(),
]);
export type ReplyTest = z.infer<typeof ReplyTest>;

/**
 * One command of a `cdp.sequence`. With `objectIdFrom` (n ≥ 1) its `params.objectId` is the
 * object the reply n commands earlier holds as `result.objectId` (a `Runtime.evaluate` that
 * answered with an object): a question about an object found in the same round trip. When that
 * reply holds no object (the evaluation answered null or a primitive, or threw), the command is
 * not sent and its reply is `{}`.
 *
 * With `afterReplies` (feature `after_replies`, decision 0212) the command goes out only once
 * every earlier command of the sequence has replied, pipelined or not: a read placed after input
 * sees what the input did. The earlier commands have then run, so its own failure does not fail
 * the sequence: its reply is `{ failed: message }`. When an earlier command failed it is not
 * sent, and the sequence fails with that command's failure as usual.
 *
 * With `sendIf` and `paramsFrom` (feature `reply_values`, decisions 0239 and 0241) the command
 * waits for the earlier replies they name and goes out only when every `sendIf` test holds and
 * each `paramsFrom` value is a number, string or boolean, which then becomes that parameter (or
 * a field of an object parameter, named by a dotted path): an
 * action aimed at what an evaluation in the same round trip found, or sent only when a reply
 * says it is the right way. Otherwise it is not sent and its reply is `{}`, as for
 * `objectIdFrom`.
 */
export const SequenceCommand = z.object({
  method: CdpMethod,
  params: z.record(z.string(), z.unknown()),
  objectIdFrom: z.number().int().min(1).max(MAX_SEQUENCE).optional(),
  afterReplies: z.literal(true).optional(),
  sendIf: z.array(ReplyTest).min(1).max(MAX_REPLY_VALUES).optional(),
  paramsFrom: z.array(ReplyValue.extend({ param: PARAM_PATH }).strict())
    .min(1).max(MAX_REPLY_VALUES).optional(),
}).strict();
export type SequenceCommand = z.infer<typeof SequenceCommand>;

/** The earlier replies a sequence command names (counted back from it), each once. */
export function namedReplies(command: SequenceCommand): number[] {
  const named = [
    ...(command.objectIdFrom !== undefined ? [command.objectIdFrom] : []),
    ...(command.sendIf ?? []).map((value) => value.reply),
    ...(command.paramsFrom ?? []).map((value) => value.reply),
  ];
  return [...new Set(named)];
}

/** Most host rules one tab may carry (`tab.network_rules`). */
export const MAX_NETWORK_RULES = 400;

/**
 * One rule of a tab's request filter (feature `network_rules`, decision 0275): requests to `host`
 * (and, with `subdomains`, to its subdomains; `null` is every host) are blocked or let through.
 * Of the rules a request matches, the highest `priority` decides; with none it goes through.
 */
export const NetworkRule = z.object({
  priority: z.number().int().min(1).max(1000),
  action: z.enum(["block", "allow"]),
  host: z.string().min(1).max(255).regex(/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)$/).nullable(),
  subdomains: z.boolean(),
}).strict();
export type NetworkRule = z.infer<typeof NetworkRule>;

/** Each operation's parameters and result. */
export const Operations = {
  "tab.create": {
    params: z.object({
      group: z.object({ key: z.string(), title: z.string().max(80), color: GroupColor }).strict(),
      url: z.string(),
    }).strict(),
    result: TabInfo,
  },
  "tab.get": { params: z.object({ tab_id: TabId }).strict(), result: TabInfo },
  "tab.close": { params: z.object({ tab_id: TabId }).strict(), result: z.object({}).strict() },
  /**
   * Gives a tab back to the user: stops forwarding its events and detaches the debugger (its
   * "is debugging this browser" bar goes). `detached` says whether a debugger was attached. A
   * tab that is gone is already released.
   */
  "tab.release": {
    params: z.object({ tab_id: TabId }).strict(),
    result: z.object({ detached: z.boolean() }).strict(),
  },
  "cdp": {
    params: z.object({
      tab_id: TabId,
      method: CdpMethod,
      params: z.record(z.string(), z.unknown()),
      /** A child session of the tab (an out-of-process iframe), from `tab.frames`. */
      session_id: z.string().max(100).optional(),
    }).strict(),
    result: z.record(z.string(), z.unknown()),
  },
  /** Turns on flat auto-attach for the tab and lists its out-of-process frames' sessions. */
  "tab.frames": {
    params: z.object({
      tab_id: TabId,
      /**
       * Mark the sessions whose renderer did not answer in time `held` (feature `frame_holds`,
       * decision 0761). Unasked, the listing carries no mark: a service from before the mark
       * would refuse the whole listing for a field it does not know.
       */
      held: z.boolean().optional(),
    }).strict(),
    result: z.object({
      sessions: z.array(
        z.object({
          session_id: z.string(),
          target_id: z.string(),
          type: z.string(),
          url: z.string(),
          /**
           * The frame's renderer did not answer in time (a script runs on, or a dialog holds
           * it): a command sent to its session would wait as long (decision 0700).
           */
          held: z.literal(true).optional(),
        }).strict(),
      ).max(64),
    }).strict(),
  },
  /**
   * Several CDP commands in one message, sent in order; stops at the first failure. Input
   * sequences (typing, drags) take one round trip instead of one per event. With `pipeline`
   * each command is sent without waiting for the previous one's answer (Chrome still runs
   * them in order): right for key presses and clicks, wrong where the browser must react in
   * between (a drag must start before the mouse moves on). A command naming an earlier reply
   * (`objectIdFrom`) still waits for that reply, and those after it go out after it.
   *
   * With `lead` (feature `reply_values`, decision 0239) the replies of the first `lead` commands
   * are also sent ahead, as a `sequence_lead` frame, once they are all in and none failed: an
   * input later in the message may be held by the browser (a dialog it opened, a page being
   * left), and what the lookup before it found must not wait for that. When a JavaScript dialog
   * was open on the tab as the sequence started, or one opened before the lead's replies were in
   * (the service heard of it first, and answered without the lead), the lead is withheld and no
   * command after it that waits for an earlier reply is sent: its reply is `{}`.
   */
  "cdp.sequence": {
    params: z.object({
      tab_id: TabId,
      pipeline: z.boolean().optional(),
      commands: z.array(SequenceCommand).min(1).max(MAX_SEQUENCE),
      lead: z.number().int().min(1).max(MAX_SEQUENCE).optional(),
    }).strict().refine(
      (sequence) =>
        sequence.commands.every((command, index) =>
          namedReplies(command).every((reply) => reply <= index)
        ),
      "objectIdFrom, sendIf and paramsFrom must name earlier commands of the sequence",
    ).refine(
      (sequence) => sequence.lead === undefined || sequence.lead < sequence.commands.length,
      "lead must leave commands after it",
    ),
    result: z.object({ results: z.array(z.record(z.string(), z.unknown())) }).strict(),
  },
  /**
   * Starts forwarding the tab's CDP events named in `events` (replacing any earlier list) and
   * sends the `enable` commands, again after every re-attach. `fields` keeps only the listed
   * dotted paths of an event's params, so big payloads never cross the native port.
   */
  "tab.observe": {
    params: z.object({
      tab_id: TabId,
      events: z.array(ObservedEvent).max(MAX_OBSERVED_EVENTS),
      enable: z.array(EnableCommand).max(MAX_ENABLE_COMMANDS),
      /**
       * Report where the tab stands (feature `tab_locations`): each answer to a command naming it
       * carries `tab`, read after the command, and each change of its URL or pending URL is sent
       * as a `tab_location`, until the tab is released or closed. Tabs it opens inherit this.
       */
      locations: z.boolean().optional(),
    }).strict(),
    result: z.object({}).strict(),
  },
  /**
   * Retitles and recolours the tab group of a workspace (by its key) to show the person its
   * state; `updated` is false when the extension knows no such group.
   */
  "group.update": {
    params: z.object({ key: z.string(), title: z.string().max(80), color: GroupColor }).strict(),
    result: z.object({ updated: z.boolean() }).strict(),
  },
  /**
   * Shows on the toolbar icon how many questions wait for the person (decision 0360); an empty
   * text clears the badge.
   */
  "action.badge": {
    params: z.object({ text: z.string().max(4) }).strict(),
    result: z.object({}).strict(),
  },
  /**
   * Shows a system notification for each open question and clears the others (feature
   * `notifications`, decision 0483): the whole list each time, so a missed change heals with the
   * next. Words only; nothing in a notification answers a question.
   */
  "action.notify": {
    params: z.object({
      open: z.array(
        z.object({
          number: z.number().int().positive(),
          title: z.string().max(100),
          message: z.string().max(500),
        }).strict(),
      ).max(64),
    }).strict(),
    result: z.object({ shown: z.number().int().nonnegative() }).strict(),
  },
  /** Makes the tab the active one of its window and brings that window to the front. */
  "tab.focus": {
    params: z.object({ tab_id: TabId }).strict(),
    result: z.object({}).strict(),
  },
  /**
   * Replaces the tab's request filter (feature `network_rules`): from the answer on, a request
   * from the tab (its frames, and its workers where the browser ties them to it) that the rules
   * block never leaves the browser (it fails as blocked by the client). An empty list removes
   * the filter; releasing or closing the tab removes it too.
   */
  "tab.network_rules": {
    params: z.object({
      tab_id: TabId,
      rules: z.array(NetworkRule).max(MAX_NETWORK_RULES),
    }).strict(),
    result: z.object({}).strict(),
  },
  /** Resizes the window that holds the tab; answers the window's size afterwards. */
  "window.resize": {
    params: z.object({
      tab_id: TabId,
      width: z.number().int().min(MIN_WINDOW_SIDE).max(MAX_WINDOW_SIDE),
      height: z.number().int().min(MIN_WINDOW_SIDE).max(MAX_WINDOW_SIDE),
    }).strict(),
    result: z.object({ window_id: z.number().int(), width: z.number(), height: z.number() })
      .strict(),
  },
  /**
   * One chunk of a byte payload (`shared/transfer.ts`). `complete` turns true with the last
   * chunk, once the whole payload is reassembled and its SHA-256 checked.
   */
  "transfer.chunk": {
    params: TransferChunk,
    result: z.object({ received: z.number().int(), complete: z.boolean() }).strict(),
  },
  /** Forgets a transfer the service gave up on. */
  "transfer.discard": {
    params: z.object({ transfer_id: TransferId }).strict(),
    result: z.object({}).strict(),
  },
  /**
   * A CDP command whose params hold placeholders (`transferPlaceholder`) for verified
   * transfers: each is replaced by its payload's base64, then forgotten. Refused whole, nothing
   * sent, when any of them is unknown, incomplete, expired or not placed exactly once.
   */
  "cdp.with_transfers": {
    params: z.object({
      tab_id: TabId,
      method: CdpMethod,
      params: z.record(z.string(), z.unknown()),
      session_id: z.string().max(100).optional(),
      transfers: z.array(TransferId).min(1).max(MAX_TRANSFERS_PER_COMMAND),
    }).strict(),
    result: z.record(z.string(), z.unknown()),
  },
} as const;

/** The name of an operation the extension performs. */
export type OperationName = keyof typeof Operations;
/** The parameters of an operation. */
export type OperationParams<N extends OperationName> = z.infer<(typeof Operations)[N]["params"]>;
/** The result of an operation. */
export type OperationResult<N extends OperationName> = z.infer<(typeof Operations)[N]["result"]>;

/** Service → extension: perform one operation. */
export const Command = z.object({
  type: z.literal("command"),
  id: z.number().int().nonnegative(),
  op: z.enum(Object.keys(Operations) as [OperationName, ...OperationName[]]),
  params: z.record(z.string(), z.unknown()),
}).strict();
export type Command = z.infer<typeof Command>;

/** Browser connector → extension: the service link came up (so say hello again). */
export const RelayStatus = z.object({
  type: z.literal("relay"),
  state: z.enum(["connected", "disconnected"]),
}).strict();
export type RelayStatus = z.infer<typeof RelayStatus>;

/**
 * Browser connector → extension: how many frames of this port it has taken to pass on to the
 * service (or dropped while the service was away), counted from its start. The extension keeps a
 * small window of frames beyond this count in Chrome's hands and holds the rest in its own fair
 * queue (decision 0570). A connector sends `frames: 0` as it starts; an older one never sends it,
 * and the extension then posts every frame at once, as before.
 */
export const Passed = z.object({
  type: z.literal("passed"),
  frames: z.number().int().nonnegative(),
}).strict();
export type Passed = z.infer<typeof Passed>;

/**
 * Service → extension: the answer to a person request (`answer` is a `PersonAnswer` of
 * `shared/person.ts`, checked by the extension's popup, which shows it).
 */
export const PersonReply = z.object({
  type: z.literal("person_reply"),
  id: z.number().int().nonnegative(),
  answer: z.record(z.string(), z.unknown()),
}).strict();
export type PersonReply = z.infer<typeof PersonReply>;

/** Anything the extension can receive. */
export const ToExtension = z.discriminatedUnion("type", [
  Command,
  RelayStatus,
  PersonReply,
  Passed,
]);
export type ToExtension = z.infer<typeof ToExtension>;

/**
 * Why an operation failed in the browser. `detached`: the tab's debugger session ended while the
 * command ran, for a reason on the browser's side (the tab closed, its page went away, the person
 * or another debugger took the tab); the command is over. `transfer_refused`: the browser would
 * not hold or hand out a transfer's bytes (a bound, a contradiction, a bad SHA-256, an unknown or
 * incomplete transfer), so the command that was to use them was not sent. A kind this service
 * does not know (a newer extension's) reads as `internal` rather than ending the link.
 */
export const MechanismErrorKind = z.enum([
  "no_such_tab",
  "cdp_error",
  "context_lost",
  "invalid_params",
  "unsupported",
  "internal",
  "detached",
  "transfer_refused",
]).catch("internal");
export type MechanismErrorKind = z.infer<typeof MechanismErrorKind>;

/** A browser id: the extension's random UUID, or any 8 to 64 letters, digits, `-` and `_`. */
export const BROWSER_ID = /^[A-Za-z0-9_-]{8,64}$/;
/** The longest extension version a hello may carry (Chrome's are four dotted numbers). */
export const MAX_EXTENSION_VERSION = 32;
/** The longest user agent a hello may carry. */
export const MAX_USER_AGENT = 500;
/** Most features a hello may declare, and the longest name of one. */
export const MAX_FEATURES = 64;
export const MAX_FEATURE_NAME = 64;
/** The longest launch token a hello may carry (`browser launch` sends a UUID). */
export const MAX_LAUNCH_TOKEN = 64;

/**
 * The answer to one command: its value, or why it failed; with either, where the command left the
 * tab it names, read once it finished (only for a tab that reports its location, and only when no
 * change of it was seen while it was read).
 */
const CommandResult = z.discriminatedUnion("ok", [
  z.object({
    type: z.literal("result"),
    id: z.number().int().nonnegative(),
    ok: z.literal(true),
    value: z.unknown(),
    tab: TabInfo.optional(),
  }).strict(),
  z.object({
    type: z.literal("result"),
    id: z.number().int().nonnegative(),
    ok: z.literal(false),
    error: z.object({ kind: MechanismErrorKind, message: z.string() }).strict(),
    tab: TabInfo.optional(),
  }).strict(),
]);

/**
 * Anything the extension can send, told apart by its `type` (a result by `ok` too), so each
 * message is checked against its own shape only: the service parses every result and every CDP
 * event it is sent.
 */
export const FromExtension = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    browser_id: z.string().regex(BROWSER_ID),
    extension_version: z.string().max(MAX_EXTENSION_VERSION).regex(/^[0-9A-Za-z.+-]+$/),
    user_agent: z.string().max(MAX_USER_AGENT),
    /** Set when `ghostlight browser launch` started this browser, so it can tell it apart. */
    launch_token: z.string().max(MAX_LAUNCH_TOKEN).optional(),
    /**
     * Which run of the browser this is: the same while the browser runs (across service worker
     * restarts and relay reconnects), new when the browser restarts and its tab ids start over.
     */
    browser_run: z.string().max(MAX_LAUNCH_TOKEN).optional(),
    /**
     * The features this extension supports (`shared/extension_features.ts`). The service sends
     * an extension only the operations of features it declared; absent means none.
     */
    features: z.array(z.string().max(MAX_FEATURE_NAME)).max(MAX_FEATURES).optional(),
    /**
     * The executor saying hello: `generation` is new each time the service worker starts (a new
     * one proves every command of the old one ended), `link` counts this worker's hellos (the
     * commands of each link are numbered from 1). Absent: an extension that cannot prove a cut-off
     * command ended, whose quarantined tabs clear only when they close or the browser restarts.
     */
    executor: z.object({
      generation: z.string().min(1).max(MAX_LAUNCH_TOKEN),
      link: z.number().int().positive(),
    }).strict().optional(),
  }).strict(),
  CommandResult,
  /**
   * Where a tab that reports its location (`tab.observe` with `locations`) stands now: its URL or
   * pending URL changed. Changes within one site are coalesced per tab; a change of site is sent
   * at once. Never subject to the CDP events' rate bound. Without `tab`: the tab stopped
   * reporting (its debugger went away) until a command attaches to it again.
   */
  z.object({ type: z.literal("tab_location"), tab_id: TabId, tab: TabInfo.optional() }).strict(),
  /**
   * The replies of the first `lead` commands of a `cdp.sequence` still running (decision 0239);
   * its `result` follows with all of them.
   */
  z.object({
    type: z.literal("sequence_lead"),
    id: z.number().int().nonnegative(),
    results: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_SEQUENCE),
  }).strict(),
  /**
   * The terminal acknowledgement of a command of an earlier link of this executor: it ended
   * (whichever way). Sent after every hello for the latest commands of earlier links, when each
   * has ended, so a command cut off with the link is proven over once a link is back.
   */
  z.object({
    type: z.literal("ended"),
    generation: z.string().min(1).max(MAX_LAUNCH_TOKEN),
    link: z.number().int().positive(),
    id: z.number().int().nonnegative(),
  }).strict(),
  z.object({ type: z.literal("tab_removed"), tab_id: TabId }).strict(),
  /**
   * The person asked something from the popup or a keyboard shortcut (`request` is a
   * `PersonRequest` of `shared/person.ts`, checked by the service); answered by a
   * `person_reply` with the same id.
   */
  z.object({
    type: z.literal("person"),
    id: z.number().int().nonnegative(),
    request: z.record(z.string(), z.unknown()),
  }).strict(),
  /** A tab appeared; `opener_tab_id` is set when a page opened it (popup, target=_blank). */
  z.object({
    type: z.literal("tab_created"),
    tab_id: TabId,
    opener_tab_id: TabId.optional(),
    active: z.boolean(),
  }).strict(),
  /**
   * A CDP event from an observed tab, already filtered and clipped by the extension.
   * `dropped` counts events of this tab discarded by the rate bound since the last one sent.
   */
  z.object({
    type: z.literal("cdp_event"),
    tab_id: TabId,
    method: CdpMethod,
    params: z.record(z.string(), z.unknown()),
    dropped: z.number().int().nonnegative().optional(),
  }).strict(),
]);
export type FromExtension = z.infer<typeof FromExtension>;
