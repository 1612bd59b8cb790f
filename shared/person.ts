/**
 * The person's controls, as every surface asks for them: the CLI (through the control socket)
 * and the extension's popup and keyboard shortcuts (through the browser link). One request
 * vocabulary and one state shape; the service decides and answers, the surfaces only show and
 * ask.
 *
 * @module
 */

import { z } from "zod";
import { GroupColor } from "./browser_protocol.ts";
import { AgentPermission, PanelRemote } from "./panel.ts";

export { AgentPermission, AgentPermissionAnswer } from "./panel.ts";

/**
 * The person's answer to a question (decision 0360): allow this one call, allow the capability
 * on the site for that agent until its workspace ends, or deny.
 */
export const QuestionAnswer = z.enum(["once", "site", "deny"]);
export type QuestionAnswer = z.infer<typeof QuestionAnswer>;

/**
 * What the person can ask. `workspace` is the workspace's number; without it, every one.
 * `answer` answers question `question`; `revoke` forgets the remembered yes `grant`.
 */
export const PersonRequest = z.discriminatedUnion("op", [
  z.object({ op: z.literal("state") }).strict(),
  z.object({
    op: z.enum(["hold", "resume", "stop", "take_over"]),
    workspace: z.number().int().positive().optional(),
  }).strict(),
  z.object({
    op: z.literal("answer"),
    question: z.number().int().positive(),
    answer: QuestionAnswer,
    /** With `site`: also saved in the person's policy file as a grant (decision 0482). */
    persist: z.boolean().optional(),
  }).strict(),
  z.object({ op: z.literal("revoke"), grant: z.number().int().positive() }).strict(),
]);
export type PersonRequest = z.infer<typeof PersonRequest>;

/**
 * `running` (a call is in flight), `idle`, `held` (paused by the person), `attention` (paused by
 * the attention circuit after repeated denials, until the person chooses).
 */
export const WorkspaceState = z.enum(["running", "idle", "held", "attention"]);
export type WorkspaceState = z.infer<typeof WorkspaceState>;

/** One call as the person sees it: the tool, its action, the site. */
const CallView = z.object({
  tool: z.string(),
  action: z.string().nullable(),
  host: z.string().nullable(),
  /** ISO time it started (current) or ended (last). */
  at: z.string(),
});

/** One agent's workspace as the person sees it. Never its id: that is the agent's capability. */
export const PersonWorkspace = z.object({
  /** The person's handle for it (`ghostlight hold 2`), numbered from 1 as workspaces open. */
  number: z.number().int().positive(),
  /** The principal its connector proved: what the person's surfaces name it by (decision 0338). */
  principal: z.string().optional(),
  /** What the MCP client calls itself: its claim, shown only as a marked detail. */
  client: z.string(),
  color: GroupColor,
  state: WorkspaceState,
  tabs: z.number().int().nonnegative(),
  /** Denials in a row; the attention circuit opens at `attentionAfter`. */
  denials: z.number().int().nonnegative(),
  /** The plan the agent stated last (update_plan). */
  plan: z.object({ domains: z.array(z.string()), approach: z.array(z.string()), at: z.string() })
    .nullable(),
  current: CallView.nullable(),
  /** The last call that ended, with how it ended (an outcome kind). */
  last: CallView.extend({ result: z.string() }).nullable(),
});
export type PersonWorkspace = z.infer<typeof PersonWorkspace>;

/**
 * A question waiting for the person (decision 0360): which agent, which capability on which
 * site, and what the call would do, in words; never an argument's value. A remote agent host's
 * own request (decision 0530) has no workspace and carries the agent's words in `agent`.
 */
export const PersonQuestion = z.object({
  /** The person's handle for it (`ghostlight allow 3`), numbered from 1 per service. */
  number: z.number().int().positive(),
  /** The asking agent's workspace number; null for an agent host's own request. */
  workspace: z.number().int().positive().nullable(),
  principal: z.string().max(64),
  /** What its MCP client calls itself: a claim, shown as a detail. */
  client: z.string().max(200),
  capability: z.string().max(16),
  host: z.string().max(300),
  /** What the call would do: its tool and action, in words. */
  call: z.string().max(300),
  /**
   * The element the call aims at, as the read that gave the agent its ref named it: page text,
   * which every surface shows fenced ({@linkcode targetWords}); never a value (decision 0481).
   */
  target: z.object({ role: z.string().max(40), name: z.string().max(200) }).nullable()
    .default(null),
  /** A remote agent host's own request, in its words (decision 0530); null for a call's. */
  agent: AgentPermission.nullable().default(null),
  /** ISO times: when it was asked, and when it is refused unanswered. */
  asked: z.string(),
  expires: z.string(),
});
export type PersonQuestion = z.infer<typeof PersonQuestion>;

/**
 * An agent host's own words as the CLI shows them: marked as the agent's, on one line, quoted
 * with every quote, control, line and bidirectional character escaped (decision 0530).
 */
export function agentWords(agent: AgentPermission): string {
  const kind = agent.kind === null ? "" : ` (its kind: ${agent.kind})`;
  return `in the agent host's own words, not Ghostlight's: ${quotedOneLine(agent.title)}${kind}`;
}

/** JSON-quoted, with line and bidirectional marks escaped too: one line that cannot pose. */
function quotedOneLine(text: string): string {
  return JSON.stringify(text).replace(
    /[\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * A question's target in the words the CLI and the client's form show: marked as the page's
 * own text, on one line, quoted with every quote, control and line character escaped, so a
 * page's name cannot pass for Ghostlight's words nor start a line of its own (decision 0481).
 */
export function targetWords(target: NonNullable<PersonQuestion["target"]>): string {
  const role = /^[a-z][a-z-]{0,39}$/.test(target.role) ? target.role : "element";
  return `the ${role} the page names ${quotedOneLine(target.name)} (page text)`;
}

/** A yes remembered for the site for one agent, until its workspace ends or the person revokes it. */
export const PersonGrant = z.object({
  number: z.number().int().positive(),
  workspace: z.number().int().positive(),
  principal: z.string().max(64),
  capability: z.string().max(16),
  host: z.string().max(300),
  /** Where the person said it: the CLI, the popup, the client. */
  by: z.string().max(40),
  at: z.string(),
});
export type PersonGrant = z.infer<typeof PersonGrant>;

/** Everything the person's surfaces show. */
export const PersonState = z.object({
  service: z.object({ version: z.string(), instance: z.string().nullable() }),
  /** Every agent is paused (hold without a workspace). */
  paused: z.boolean(),
  /** Denials in a row that open a workspace's attention circuit. */
  attentionAfter: z.number().int().positive(),
  /**
   * How long the popup's question cards (and an agent's Resume) must have been shown unmoved
   * before a click on their buttons counts (decision 0560); the popup's own default without it.
   */
  settleMs: z.number().int().min(300).max(10_000).optional(),
  /** Connections the person stopped that have not reconnected. */
  stopped: z.number().int().nonnegative(),
  policy: z.object({
    /** One line: what is in force. */
    summary: z.string(),
    /** Set when a policy file is broken: why, and what stays in force. */
    problem: z.string().nullable(),
    /** What in the policies in force still works but is deprecated, one line each. */
    warnings: z.array(z.string().max(2_000)).max(8).optional(),
  }),
  audit: z.object({
    file: z.string(),
    ok: z.boolean(),
    error: z.string().nullable(),
    /** Records this service found missing at its start (recorded as a gap), in words. */
    gap: z.string().max(2_000).optional(),
  }),
  workspaces: z.array(PersonWorkspace),
  /** The questions waiting for the person, oldest first. */
  questions: z.array(PersonQuestion).max(256).default([]),
  /** The yeses remembered for a site for one agent. */
  granted: z.array(PersonGrant).max(4096).default([]),
  /** The remote agents whose shores are connected, for the popup's remote mark. */
  remotes: z.array(PanelRemote).max(32).optional(),
});
export type PersonState = z.infer<typeof PersonState>;

/** The answer to a person request: the state after it, or why it could not be done. */
export const PersonAnswer = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), state: PersonState, said: z.string() }).strict(),
  z.object({ ok: z.literal(false), message: z.string() }).strict(),
]);
export type PersonAnswer = z.infer<typeof PersonAnswer>;
