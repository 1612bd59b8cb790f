/**
 * The agent host's own permission requests (ACP `session/request_permission`), answered
 * truthfully: the person decides (decision 0530). The shore passes the agent's words to the
 * service, which asks the person as a policy's ask does (`ghostlight asks`, the popup); the
 * answer is mapped back to the agent's own options: allow once to its `allow_once` option, deny
 * to its `reject_once` (or `reject_always`) option. Nothing is granted for longer than once.
 * Unanswered within the ask bound, withdrawn, or asked by a malformed request: `cancelled`, and
 * the shore says why on its output. Both bindings use it; one tunnel's requests end with it.
 *
 * @module
 */

import { z } from "zod";
import type { AgentPermission } from "../shared/panel.ts";
import type { AgentPermissionEnd } from "./service_link.ts";

/** ACP's answer to `session/request_permission`. */
export type PermissionOutcome = {
  outcome: { outcome: "cancelled" } | { outcome: "selected"; optionId: string };
};

/** What the shore needs to ask: its link to the service. */
export type PermissionAsker = (
  request: AgentPermission,
  signal: AbortSignal,
) => Promise<AgentPermissionEnd>;

const OptionKind = z.enum(["allow_once", "allow_always", "reject_once", "reject_always"]);
const PermissionOption = z.object({
  optionId: z.string().min(1).max(200),
  name: z.string().max(1_000),
  kind: OptionKind,
}).passthrough();

/** The request's fields the shore reads; the rest (raw input, locations) is not shown. */
const PermissionRequest = z.object({
  sessionId: z.string().max(200),
  toolCall: z.object({
    toolCallId: z.string().max(200),
    title: z.string().nullish(),
    kind: z.string().nullish(),
  }).passthrough(),
  options: z.array(PermissionOption).min(1).max(16),
}).passthrough();

const CANCELLED: PermissionOutcome = { outcome: { outcome: "cancelled" } };

/** Most characters of the agent's title shown to the person. */
const TITLE_MAX = 300;

/** One tunnel's permission requests: asked, answered, and withdrawn together when it ends. */
export class AgentPermissions {
  readonly #open = new Set<AbortController>();

  constructor(
    private readonly ask: PermissionAsker,
    private readonly say: (line: string) => void,
  ) {}

  /** Answers one `session/request_permission` with the person's word. */
  async answer(params: unknown): Promise<PermissionOutcome> {
    const parsed = PermissionRequest.safeParse(params);
    if (!parsed.success) {
      this.say(
        `the agent host's permission request was malformed ` +
          `(${parsed.error.issues[0].path.join(".") || "params"}: ${
            parsed.error.issues[0].message
          }); answered cancelled`,
      );
      return CANCELLED;
    }
    const { toolCall, options } = parsed.data;
    const allowOnce = options.find((option) => option.kind === "allow_once");
    const reject = options.find((option) => option.kind === "reject_once") ??
      options.find((option) => option.kind === "reject_always");
    const title = (toolCall.title ?? "").slice(0, TITLE_MAX) || "(it gave no title)";
    const kind = typeof toolCall.kind === "string" && /^[a-z_]{1,20}$/.test(toolCall.kind)
      ? toolCall.kind
      : null;
    const controller = new AbortController();
    this.#open.add(controller);
    let end: AgentPermissionEnd;
    try {
      end = await this.ask({ title, kind, canAllow: allowOnce !== undefined }, controller.signal);
    } catch (error) {
      end = { answer: "withdrawn", said: `the service could not be asked: ${errorText(error)}` };
    } finally {
      this.#open.delete(controller);
    }
    const chosen = end.answer === "once" ? allowOnce : end.answer === "deny" ? reject : undefined;
    this.say(
      `the agent host's permission request: ${end.said}; answered ${
        chosen === undefined ? "cancelled" : `${chosen.kind} (${chosen.optionId.slice(0, 80)})`
      }`,
    );
    return chosen === undefined
      ? CANCELLED
      : { outcome: { outcome: "selected", optionId: chosen.optionId } };
  }

  /**
   * Withdraws every open request: the turn was cancelled (ACP wants them answered `cancelled`)
   * or the tunnel ended.
   */
  cancelAll(): void {
    for (const controller of this.#open) controller.abort();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
