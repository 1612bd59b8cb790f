/**
 * The vocabulary between the service and the extension. The browser connector relays these
 * frames without reading them; the service and the extension validate them. The extension only
 * executes mechanism: every decision is the service's.
 *
 * @module
 */

import { z } from "zod";

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
  title: z.string(),
  status: z.string(),
  active: z.boolean(),
}).strict();
export type TabInfo = z.infer<typeof TabInfo>;

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
  "cdp": {
    params: z.object({
      tab_id: TabId,
      method: z.string().regex(/^[A-Z][A-Za-z]+\.[a-zA-Z]+$/),
      params: z.record(z.string(), z.unknown()),
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

/** Anything the extension can receive. */
export const ToExtension = z.discriminatedUnion("type", [Command, RelayStatus]);
export type ToExtension = z.infer<typeof ToExtension>;

/** Why an operation failed in the browser. */
export const MechanismErrorKind = z.enum([
  "no_such_tab",
  "cdp_error",
  "invalid_params",
  "unsupported",
  "internal",
]);

/** Anything the extension can send. */
export const FromExtension = z.union([
  z.object({
    type: z.literal("hello"),
    browser_id: z.string().min(8).max(64),
    extension_version: z.string(),
    user_agent: z.string().max(500),
    /** Set when `ghostlight browser launch` started this browser, so it can tell it apart. */
    launch_token: z.string().max(64).optional(),
  }).strict(),
  z.object({
    type: z.literal("result"),
    id: z.number().int().nonnegative(),
    ok: z.literal(true),
    value: z.unknown(),
  }).strict(),
  z.object({
    type: z.literal("result"),
    id: z.number().int().nonnegative(),
    ok: z.literal(false),
    error: z.object({ kind: MechanismErrorKind, message: z.string() }).strict(),
  }).strict(),
  z.object({ type: z.literal("tab_removed"), tab_id: TabId }).strict(),
]);
export type FromExtension = z.infer<typeof FromExtension>;
