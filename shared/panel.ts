/**
 * Talking to a remote agent from the extension's side panel (issue 31, decision 0470): the
 * person's request and the agent's turn as every hop carries them. The panel asks the service
 * (through the worker and the browser connector, on the person channel); the service relays a
 * prompt to the remote shore over the bridge; the shore is the agent host's ACP client, sends
 * `session/prompt` and `session/cancel`, and relays what the turn shows back as
 * {@linkcode TurnUpdate}s. Every text is bounded here, so no hop carries more.
 *
 * It imports nothing that needs Deno: the panel's page checks its answers with it too.
 *
 * @module
 */

import { z } from "zod";

/** The longest request the person can send (characters). */
export const PROMPT_MAX_CHARS = 8_000;
/** The longest text one update carries; a longer agent chunk is split by the shore. */
export const CHUNK_MAX_CHARS = 2_000;
/** The updates one panel answer carries at most; the panel asks again for the rest. */
export const PANEL_PAGE = 64;
/** The updates the service keeps per remote; older ones are dropped (and counted). */
export const KEPT_UPDATES = 512;
/** The text the service keeps per remote, summed over its updates (characters). */
export const KEPT_CHARS = 256 * 1024;
/** The updates a shore relays for one turn; past it, the rest are counted, not sent. */
export const TURN_MAX_UPDATES = 4_096;

/** A remote's name (the syntax of `RemoteName` in `shared/remotes.ts`, which needs Deno). */
export const PanelRemoteName = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/);

/** What the person typed: not empty, bounded. */
export const PromptText = z.string().trim().min(1, { message: "say what the agent should do" })
  .max(PROMPT_MAX_CHARS, {
    message: `a request is at most ${PROMPT_MAX_CHARS.toLocaleString("en")} characters`,
  });

/**
 * A tool call the shore served the agent during the turn: Ghostlight's own record of it (the
 * tool, its action, how it ended in Ghostlight's words), never the agent's claim about it.
 */
const ToolSeen = z.object({
  kind: z.literal("tool"),
  /** The shore's number for the call, to match its end to its start. */
  call: z.number().int().positive(),
  tool: z.string().max(64),
  action: z.string().max(64).nullable(),
  status: z.enum(["running", "done", "failed"]),
  /** The first line of the answer when it ended (a refusal's or a failure's reason). */
  outcome: z.string().max(300).nullable(),
}).strict();

/** One thing that happened in a turn, in order. */
export const TurnUpdate = z.discriminatedUnion("kind", [
  /** The person's request, as sent. */
  z.object({ kind: z.literal("you"), text: z.string().max(PROMPT_MAX_CHARS) }).strict(),
  /** A piece of the agent's streamed reply (`agent_message_chunk`, text only). */
  z.object({ kind: z.literal("text"), text: z.string().max(CHUNK_MAX_CHARS) }).strict(),
  ToolSeen,
  /** The person pressed Stop: `session/cancel` was sent. */
  z.object({ kind: z.literal("stopping") }).strict(),
  /** The turn ended: the agent's stop reason, or why it ended without one. */
  z.object({
    kind: z.literal("end"),
    reason: z.string().max(64),
    message: z.string().max(300).nullable(),
  }).strict(),
  /** Updates the shore did not relay (past its bound for a turn). */
  z.object({ kind: z.literal("skipped"), count: z.number().int().positive() }).strict(),
]);
export type TurnUpdate = z.infer<typeof TurnUpdate>;

/** What the panel asks the service (on the person channel, `op` apart from the popup's). */
export const PanelRequest = z.discriminatedUnion("op", [
  /** The remotes, and remote `remote`'s updates numbered above `after`. */
  z.object({
    op: z.literal("panel"),
    remote: PanelRemoteName.optional(),
    after: z.number().int().nonnegative().optional(),
  }).strict(),
  z.object({ op: z.literal("panel_prompt"), remote: PanelRemoteName, text: PromptText }).strict(),
  z.object({ op: z.literal("panel_stop"), remote: PanelRemoteName }).strict(),
]);
export type PanelRequest = z.infer<typeof PanelRequest>;

/** A configured remote as the panel and the popup show it. */
export const PanelRemote = z.object({
  name: PanelRemoteName,
  /** The agent host's host and port. */
  host: z.string().max(300),
  /** Its shore is connected to the service and takes prompts. */
  connected: z.boolean(),
  /** A turn is running. */
  working: z.boolean(),
}).strict();
export type PanelRemote = z.infer<typeof PanelRemote>;

/** The service's answer to a panel request. */
export const PanelAnswer = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    remotes: z.array(PanelRemote).max(32),
    /** The remote the updates are of, when one was asked for. */
    remote: PanelRemoteName.nullable(),
    updates: z.array(z.object({ n: z.number().int().positive(), update: TurnUpdate }).strict())
      .max(PANEL_PAGE),
    /** Ask with `after` this next time. */
    next: z.number().int().nonnegative(),
    /** Updates older than the first one sent that the service no longer keeps. */
    dropped: z.number().int().nonnegative(),
    said: z.string().max(300),
  }).strict(),
  z.object({ ok: z.literal(false), message: z.string().max(1_000) }).strict(),
]);
export type PanelAnswer = z.infer<typeof PanelAnswer>;

/** Whether a person-channel request is the panel's (its `op` begins with `panel`). */
export function isPanelRequest(raw: unknown): boolean {
  const op = (raw as { op?: unknown } | null)?.op;
  return typeof op === "string" && op.startsWith("panel");
}

/**
 * A remote agent host's own permission request (ACP `session/request_permission`), as its shore
 * passes it to the person (decision 0530): the agent's words, cut, which every surface shows
 * fenced as the agent's (`agentWords` in person.ts); and whether it offered a way to allow it once.
 */
export const AgentPermission = z.object({
  /** The agent's title for what it wants to do (its own tool, not Ghostlight's). */
  title: z.string().max(300),
  /** The kind the agent gives it (`edit`, `execute`, ...), when it is a plain word. */
  kind: z.string().regex(/^[a-z_]{1,20}$/).nullable(),
  /** Whether the agent offered an "allow once" choice; without one, only deny is offered. */
  canAllow: z.boolean(),
}).strict();
export type AgentPermission = z.infer<typeof AgentPermission>;

/** How a question about an agent host's request ended, as the shore answers the agent. */
export const AgentPermissionAnswer = z.enum(["once", "deny", "unanswered", "withdrawn", "busy"]);
export type AgentPermissionAnswer = z.infer<typeof AgentPermissionAnswer>;
