/**
 * The protocol switch of one connector's session: each bridge message kind has one small
 * handler in a table, and the session reads messages until its connection ends.
 *
 * @module
 */

import { ConnectorMessage, type ToolDescriptor } from "../../shared/bridge.ts";
import type { BoundedWriter, FrameReader } from "../../shared/framing.ts";
import { withheldTools } from "../governance/mod.ts";
import { log } from "../log/mod.ts";
import type { Workspace } from "../workspace/mod.ts";
import { CONNECTION_FULL } from "./admission.ts";
import { agentPermission, withdrawAgentPermission } from "./agent_permission.ts";
import type { PromptShore } from "./prompt_relay.ts";
import type { ShoreLink } from "./remote_shores.ts";
import { openSession, type Session, type SessionDeps, type SessionInfo } from "./session.ts";
import { startWork } from "./work.ts";

type MessageOf<T extends ConnectorMessage["type"]> = Extract<ConnectorMessage, { type: T }>;

type MessageHandlers = {
  [T in ConnectorMessage["type"]]: (session: Session, message: MessageOf<T>) => void;
};

/** What the session does with each kind of message; none of them waits for a work to end. */
const ON_MESSAGE: MessageHandlers = {
  catalog: sendCatalog,
  open_workspace: openWorkspace,
  release_workspace: releaseWorkspace,
  start: startWork,
  cancel: cancelWork,
  answer: answerFromClient,
  remote_state: rememberRemoteState,
  prompts_ready: promptsReady,
  prompt_update: promptUpdate,
  agent_permission: (session, message) => void agentPermission(session, message),
};

/** The shores that take the person's prompts, by their session (decision 0470). */
const shores = new WeakMap<Session, PromptShore>();

/** The shores' state connections, by their session (decision 0520). */
const shoreLinks = new WeakMap<Session, ShoreLink>();

/** Serves one MCP connector until its connection ends. */
export async function serveSession(
  reader: FrameReader,
  writer: BoundedWriter,
  info: SessionInfo,
  deps: SessionDeps,
): Promise<void> {
  const session = openSession(writer, info, deps);
  // A reload that changes what this connector may call changes what it is offered.
  const unwatch = deps.governance.policy.onChange(() => tellIfViewChanged(session));
  // So does a new pin for a remote's connection (decision 0520).
  const unwatchPin = info.remote === undefined
    ? () => {}
    : deps.remotes?.onFileChange(() => repin(session)) ?? (() => {});
  try {
    for (let raw = await reader.next(); raw !== null; raw = await reader.next()) {
      const parsed = ConnectorMessage.safeParse(raw);
      if (!parsed.success) {
        log("warn", "a connector sent a malformed bridge message; closing its session");
        break;
      }
      handle(session, parsed.data);
    }
  } catch (error) {
    log("warn", `connector session ended: ${(error as Error).message}`);
  } finally {
    unwatch();
    unwatchPin();
    const shore = shores.get(session);
    if (shore !== undefined) deps.prompts?.gone(shore);
    const link = shoreLinks.get(session);
    if (link !== undefined) deps.remotes?.gone(link);
    // A connection lost without a clean release: its workspaces wait out a grace period so a
    // reconnecting connector can carry on in them.
    session.end();
  }
}

/** Hands a message to the handler of its kind. */
function handle(session: Session, message: ConnectorMessage): void {
  // The table is keyed by the message's own type, so each handler gets the message it expects.
  const handler = ON_MESSAGE[message.type] as (session: Session, message: ConnectorMessage) => void;
  handler(session, message);
}

/**
 * Answers with the tool catalog as this connector sees it: without the tools its principal or
 * its own restriction can never call (decision 0256).
 */
function sendCatalog(session: Session, message: MessageOf<"catalog">): void {
  const { catalog } = session.deps;
  session.view.restrictions = message.restrictions ?? [];
  const tools = catalog.descriptors() satisfies ToolDescriptor[];
  const withheld = withheldFrom(session, tools);
  session.view.listed = withheld.join(",");
  session.send({
    type: "catalog",
    seq: message.seq,
    generation: catalog.generation,
    tools,
    withheld,
  });
}

/** The names of the tools among `all` this session's connector is not offered. */
function withheldFrom(session: Session, all: ToolDescriptor[]): string[] {
  const { policy } = session.deps.governance;
  const withheld = withheldTools(
    policy.rules(),
    session.info.principal,
    session.view.restrictions,
    all.map((tool) => tool.name),
  );
  const pin = session.info.remote?.pin;
  return all.filter((tool) => withheld.has(tool.name) || (pin !== undefined && !pin.has(tool.name)))
    .map((tool) => tool.name);
}

/** After a policy reload: tells the connector its catalog changed, when its view did. */
function tellIfViewChanged(session: Session): void {
  if (session.view.listed === null) return;
  const now = withheldFrom(session, session.deps.catalog.descriptors()).join(",");
  if (now === session.view.listed) return;
  session.view.listed = now;
  session.send({ type: "catalog_changed", generation: session.deps.governance.policy.revision });
}

/**
 * After the remotes file changed: a remote's connection takes its pin as the file says now, and
 * is told its tool list changed when it did. A removed remote is left to its next call, which is
 * refused and closes the connection (decision 0470).
 */
async function repin(session: Session): Promise<void> {
  const bound = session.info.remote;
  const now = await bound?.current?.();
  if (bound === undefined || now === undefined || "refused" in now) return;
  session.info.remote = { ...bound, pin: now.pin };
  tellIfViewChanged(session);
}

/** Opens a workspace the connection holds (an edge that keeps one implicit workspace asks). */
function openWorkspace(session: Session, message: MessageOf<"open_workspace">): void {
  const { holds } = session.deps;
  const refuse = (why: string) =>
    session.refuse(message.seq, {
      kind: "busy",
      message: why,
      next_step: "Close another agent's session, then try again.",
    });
  if (session.deps.governance.person.barrier(session.holder, undefined)?.kind === "stopped") {
    return session.refuse(message.seq, {
      kind: "unavailable",
      message: "The person stopped this agent.",
      next_step: "Do not carry on in the browser; reconnecting this MCP server starts afresh.",
    });
  }
  if (holds.isFull(session.holder)) return refuse(CONNECTION_FULL);
  let workspace: Workspace;
  try {
    workspace = holds.open(session.holder, message.label);
  } catch (error) {
    return refuse((error as Error).message);
  }
  session.send({ type: "workspace_opened", seq: message.seq, workspace: workspace.id });
}

/** Releases a workspace at once: its tabs go back to the user. */
function releaseWorkspace(session: Session, message: MessageOf<"release_workspace">): void {
  session.deps.holds.release(session.holder, message.workspace);
}

/** A remote shore's word on its tunnel, kept for status; ignored from any other connection. */
function rememberRemoteState(session: Session, message: MessageOf<"remote_state">): void {
  if (session.info.remote === undefined) {
    log("warn", "a connector that serves no remote sent a remote's state; ignored");
    return;
  }
  session.info.remoteState = {
    state: message.state,
    ...(message.why === undefined ? {} : { why: message.why }),
    since: new Date(),
  };
  // The shore that speaks last for a remote is its shore; an older one is told to end.
  let link = shoreLinks.get(session);
  if (link === undefined) {
    link = { remote: session.info.remote.name, send: session.send };
    shoreLinks.set(session, link);
  }
  if (message.state === "connected") session.deps.remotes?.reported(link);
}

/** Cancels one of this connection's works; queued work retires, running work stops early. */
function cancelWork(session: Session, message: MessageOf<"cancel">): void {
  session.works.get(message.seq)?.abort();
  withdrawAgentPermission(session, message.seq);
}

/**
 * The person's answer in the client to a question put there (decision 0361): taken only for a
 * question this connector was sent, for the call it was sent for; anything else is refused, and
 * a refused answer is an audit record as well as a log line.
 */
function answerFromClient(session: Session, message: MessageOf<"answer">): void {
  if (session.elicited.get(message.question) !== message.seq) {
    log("warn", `a connector answered question ${message.question}, which it was not asked`);
    refusedAnswer(session, message, "this connector was not asked it for that call");
    return;
  }
  try {
    session.deps.governance.questions.answer(message.question, message.answer, "the client");
  } catch (error) {
    // Answered elsewhere first: the first answer wins.
    log("info", `the client's answer came late: ${(error as Error).message}`);
    refusedAnswer(session, message, "it was answered elsewhere first, or had ended");
  }
}

/** Records a client's answer that was not taken, and why. */
function refusedAnswer(session: Session, message: MessageOf<"answer">, why: string): void {
  session.deps.governance.audit.append({
    kind: "decision",
    result: "answer refused",
    principal: session.info.principal,
    client: session.info.client.slice(0, 200),
    workspace: null,
    work: null,
    tool: "asks",
    action: null,
    host: null,
    capabilities: [],
    rule: `the client's answer "${message.answer}" to question ${message.question} was not ` +
      `taken: ${why}`,
    args: "none",
  }).catch((error) => log("warn", `a refused answer was not audited: ${error.message}`));
}

/**
 * A remote shore takes the person's prompts (decision 0470): only a connection the service bound
 * to a remote from its own file; a local connector that says so is not heard.
 */
function promptsReady(session: Session): void {
  const remote = session.info.remote;
  const relay = session.deps.prompts;
  if (remote === undefined || relay === undefined || shores.has(session)) {
    if (remote === undefined) log("warn", "a local connector offered to take prompts; ignored");
    return;
  }
  const shore: PromptShore = { remote: remote.name, host: remote.host, send: session.send };
  shores.set(session, shore);
  relay.ready(shore);
}

/** What a shore relays of the person's turn; from anything but a ready shore, nothing. */
function promptUpdate(session: Session, message: MessageOf<"prompt_update">): void {
  const shore = shores.get(session);
  if (shore !== undefined) session.deps.prompts?.update(shore, message.turn, message.update);
}
