/**
 * The bridge vocabulary between a connector and the service. Both sides validate every message
 * with these schemas. It names no MCP revision and no JSON-RPC id: the connector maps its own
 * request ids to `seq`, the service maps `seq` to a work id that the connector only echoes.
 *
 * @module
 */

import { z } from "zod";
import { AgentPermission, AgentPermissionAnswer, PromptText, TurnUpdate } from "./panel.ts";
import { RemoteName } from "./remotes.ts";

/**
 * Bumped on any incompatible change; a mismatch is fatal at hello. 2: the catalog message no
 * longer carries the MCP instructions (the connector owns them). 3: the connector proves the
 * instance secret too, answering the service's challenge. 4: a `start` may carry restrictions,
 * which a service that ignored them would not honour. 5: no `started`; `cancel` and `completed`
 * name a call by its `start`'s seq (decision 0238). 6: the hello names the connector's principal,
 * a catalog request carries the connector's restrictions and its answer names the tools it
 * withholds (decisions 0255, 0256); each role proves a key of its own, the service with an
 * Ed25519 signature over both hellos (decision 0250). 7: the service may put a question to the
 * person through a client that declared elicitation (`ask`, `withdraw`, `answer`; decision 0361).
 */
export const BRIDGE_MAJOR = 7;

/** Largest frame on the connector ↔ service hop, either way (screenshots are the big ones). */
export const BRIDGE_MAX_FRAME = 32 * 1024 * 1024;

/** Who is connecting: an MCP connector or a browser connector. */
export const Role = z.enum(["mcp", "browser"]);
export type Role = z.infer<typeof Role>;

/** A nonce one side must prove it can sign: base64 of 32 random bytes. */
const Nonce = z.string().min(32).max(128);

/**
 * Who a connector acts for, fixed when it is started by what the person configured (decision
 * 0255): `install` writes each client's entry with its own (`claude-desktop`, `cursor`, ...).
 * Policy grants name principals; a client's self-reported `clientInfo` never grants anything.
 */
export const Principal = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, {
  message: "a principal is 1 to 64 lowercase letters, digits and dashes, starting with a " +
    "letter or digit",
});
export type Principal = z.infer<typeof Principal>;

/** The principal of a connector started with none (by hand, or by an older client entry). */
export const UNNAMED_PRINCIPAL = "unnamed";

/** The connector's opening message. `nonce` is what the service must prove it can sign. */
export const ConnectorHello = z.object({
  type: z.literal("hello"),
  bridge_major: z.number().int(),
  role: Role,
  nonce: Nonce,
  /** An MCP connector's principal; one that says none acts as {@linkcode UNNAMED_PRINCIPAL}. */
  principal: Principal.optional(),
  /**
   * The remote a remote shore serves (decision 0400): the service binds `remote:NAME` and the
   * remote's pin from its own remotes file, never from anything the agent host says.
   */
  remote: RemoteName.optional(),
  client: z.object({ name: z.string().max(200), version: z.string().max(100) }).strict()
    .optional(),
}).strict();
export type ConnectorHello = z.infer<typeof ConnectorHello>;

/**
 * A refusal that ends the connection, with a reason for people. `again`: nothing was wrong but
 * time (the connector's proof came after the service stopped waiting), so connecting again may
 * well succeed.
 */
const Refused = z.object({
  type: z.literal("refused"),
  message: z.string().max(1_000),
  again: z.literal(true).optional(),
}).strict();

/**
 * The service's answer: its proof over the connector's nonce and its own challenge for the
 * connector, or a fatal refusal.
 */
export const ServiceHello = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    bridge_major: z.number().int(),
    /** The service's Ed25519 signature over both hellos (base64 of 64 bytes). */
    proof: z.string().max(128),
    challenge: Nonce,
    service: z.object({
      version: z.string().max(100),
      instance: z.string().max(100).nullable(),
      pid: z.number(),
    }).strict(),
  }).strict(),
  Refused,
]);
export type ServiceHello = z.infer<typeof ServiceHello>;

/** The connector's answer to the service's challenge: its proof of its role's key. */
export const ConnectorProof = z.object({
  type: z.literal("proof"),
  proof: z.string().max(128),
}).strict();
export type ConnectorProof = z.infer<typeof ConnectorProof>;

/** The service's last word of the handshake: the connector is admitted, or refused. */
export const Admission = z.discriminatedUnion("type", [
  z.object({ type: z.literal("admitted") }).strict(),
  Refused,
]);
export type Admission = z.infer<typeof Admission>;

/** A block of tool output. Neutral shapes that every revision can render. */
export const ContentBlock = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }).strict(),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string() }).strict(),
]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/** What a finished work amounted to. The connector renders these per revision. */
export const Outcome = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("success"),
    content: z.array(ContentBlock),
    structured: z.record(z.string(), z.unknown()).optional(),
    /** Set by context-creating tools: the workspace the call ran in. */
    workspace: z.string().optional(),
  }).strict(),
  z.object({
    kind: z.enum([
      "tool_failure",
      "not_dispatched",
      "outcome_unknown",
      "denied",
      "held",
      "attention_required",
      "cancelled",
    ]),
    message: z.string(),
    next_step: z.string(),
  }).strict(),
]);
export type Outcome = z.infer<typeof Outcome>;

/** Why the service refused a request before any work began. */
export const RejectionKind = z.enum([
  "invalid_request",
  "unknown_tool",
  "no_workspace",
  "busy",
  "unavailable",
]);

/** A tool as the catalog advertises it. */
export const ToolDescriptor = z.object({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z.record(z.string(), z.unknown()),
  /** Context-creating tools mint a workspace when a call names none. */
  createsContext: z.boolean(),
  /** Stateful tools act inside a workspace. */
  needsWorkspace: z.boolean(),
  /** Tools that use a workspace when a call names one (every stateful tool, and a few more). */
  acceptsWorkspace: z.boolean(),
}).strict();
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

const Seq = z.number().int().nonnegative();

/** The longest workspace id a connector may send back (the service mints ~43). */
export const MAX_HANDLE = 256;
const WorkspaceHandle = z.string().max(MAX_HANDLE);

/**
 * A restriction a call carries on top of the person's policy: only these capabilities, only
 * these hosts. The connector passes on what its caller or its environment asked; the service
 * checks it (an invalid one refuses the call) and can only tighten with it.
 */
export const CallRestriction = z.object({
  /** Where it came from, for the denial's words: "the call's _meta", an environment variable. */
  source: z.string().max(100),
  capabilities: z.array(z.string().max(16)).max(8).optional(),
  hosts: z.array(z.string().max(300)).max(64).optional(),
}).strict();
export type CallRestriction = z.infer<typeof CallRestriction>;

/** Everything a connector may send after hello. */
export const ConnectorMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("open_workspace"), seq: Seq, label: z.string().max(200) }).strict(),
  /**
   * A remote shore's word on its tunnel (decision 0460), for the person's `status`; taken only on
   * a connection the service bound to a remote, which is then listed as the remote, not as an MCP
   * connector.
   */
  z.object({
    type: z.literal("remote_state"),
    state: z.enum(["connected", "degraded"]),
    why: z.string().max(500).optional(),
  }).strict(),
  z.object({ type: z.literal("release_workspace"), workspace: WorkspaceHandle }).strict(),
  z.object({
    type: z.literal("catalog"),
    seq: Seq,
    /** The connector's own restriction: a tool it could never call is not listed. */
    restrictions: z.array(CallRestriction).max(4).optional(),
  }).strict(),
  z.object({
    type: z.literal("start"),
    seq: Seq,
    tool: z.string().max(128),
    arguments: z.record(z.string(), z.unknown()),
    workspace: WorkspaceHandle.optional(),
    context: z.object({
      client_name: z.string().max(200),
      client_version: z.string().max(100),
      restrictions: z.array(CallRestriction).max(4).optional(),
      /** The client declared form elicitation: a question may be put to the person there. */
      elicitation: z.boolean().optional(),
    }).strict(),
  }).strict(),
  /** Cancels the call the `start` of this `seq` began (decision 0238). */
  z.object({ type: z.literal("cancel"), seq: Seq }).strict(),
  /** The person's answer, in the client, to the question `ask` put for the call of `seq`. */
  z.object({
    type: z.literal("answer"),
    seq: Seq,
    question: z.number().int().positive(),
    answer: z.enum(["once", "site", "deny"]),
  }).strict(),
  /**
   * A remote shore takes the person's prompts for its remote (decision 0470); the service sends
   * `prompt` and `prompt_stop` only to a connection that said this and was bound to a remote.
   */
  z.object({ type: z.literal("prompts_ready") }).strict(),
  /** What turn `turn` of the person's prompt showed, relayed by the shore. */
  z.object({ type: z.literal("prompt_update"), turn: Seq, update: TurnUpdate }).strict(),
  /**
   * A remote shore passes its agent host's own permission request to the person (decision 0530);
   * taken only on a connection bound to a remote. `cancel` with the same `seq` withdraws it.
   */
  z.object({ type: z.literal("agent_permission"), seq: Seq, request: AgentPermission }).strict(),
]);
export type ConnectorMessage = z.infer<typeof ConnectorMessage>;

/** Everything the service may send after hello. */
export const ServiceMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("workspace_opened"), seq: Seq, workspace: z.string() }).strict(),
  z.object({
    type: z.literal("catalog"),
    seq: Seq,
    generation: z.number().int(),
    tools: z.array(ToolDescriptor),
    /**
     * The tools this connector's principal or its own restriction can never call: not listed to
     * its client, though a call of one still reaches the gate and is refused with the rule.
     */
    withheld: z.array(z.string().max(128)).max(256),
  }).strict(),
  z.object({ type: z.literal("catalog_changed"), generation: z.number().int() }).strict(),
  z.object({
    type: z.literal("rejected"),
    seq: Seq,
    kind: RejectionKind,
    message: z.string(),
    next_step: z.string(),
  }).strict(),
  /** The one end of the call the `start` of this `seq` began. */
  z.object({ type: z.literal("completed"), seq: Seq, outcome: Outcome }).strict(),
  /**
   * The call of `seq` waits for the person's answer to question `question` (its caller deadline
   * rests meanwhile, decision 0480); where its client declared elicitation, put it there as a
   * form. `message` says who wants what where, never an argument's value.
   */
  z.object({
    type: z.literal("ask"),
    seq: Seq,
    question: z.number().int().positive(),
    message: z.string().max(2_000),
  }).strict(),
  /** The question was answered elsewhere, or ended: the client's form is taken back. */
  z.object({
    type: z.literal("withdraw"),
    seq: Seq,
    question: z.number().int().positive(),
  }).strict(),
  /** The person's request from the side panel, for the remote agent (decision 0470). */
  z.object({ type: z.literal("prompt"), turn: Seq, text: PromptText }).strict(),
  /** The person pressed Stop: the shore sends the agent host `session/cancel`. */
  z.object({ type: z.literal("prompt_stop"), turn: Seq }).strict(),
  /** How the person's question about the agent host's request `seq` ended (decision 0530). */
  z.object({
    type: z.literal("agent_permission_answer"),
    seq: Seq,
    answer: AgentPermissionAnswer,
    /** In words, for the shore's output: who answered, or why nobody did. */
    said: z.string().max(500),
  }).strict(),
  /**
   * The service ends a remote shore (decision 0520): the person stopped its remote agent, or a
   * newer shore for the same remote replaced it. The shore answers what is in flight, closes its
   * tunnel saying `why`, and does not dial again.
   */
  z.object({ type: z.literal("remote_end"), why: z.string().max(200) }).strict(),
]);
export type ServiceMessage = z.infer<typeof ServiceMessage>;
