/**
 * The governance step of a work: what the person's controls and the policy say before anything
 * is sent to the browser, the landing check after a call that may have moved its tab, and the
 * audit record of each decision and each outcome. The decision is `decide()`'s and the person's
 * controls are `PersonControls`'; this step gathers the facts (the tab's host, the capability of
 * the action, the call's restrictions), words the answer, and writes the audit, failing closed.
 *
 * @module
 */

import type { ConnectorMessage, Outcome } from "../../shared/bridge.ts";
import { type AuditEntry, AuditUnavailable } from "../audit/mod.ts";
import { BrowserError, type BrowserLink } from "../browser/mod.ts";
import { capabilitiesFor, type Capability } from "../catalog/mod.ts";
import {
  ALL_OPEN,
  type Barrier,
  decide,
  type Decision,
  describePolicy,
  hostOfUrl,
  type PageHost,
  refuses,
  Restriction,
  sacredSource,
} from "../governance/mod.ts";
import { log } from "../log/mod.ts";
import {
  failureOutcome,
  fence,
  normalizeUrl,
  originOf,
  ownedTab,
  type PolicyView,
  type Refusal,
} from "../tools/mod.ts";
import type { Workspace } from "../workspace/mod.ts";
import {
  filterBeforeDispatch,
  type Filtered,
  stoppedBy,
  stoppedNavigationOutcome,
  withStoppedNote,
} from "./request_filter.ts";
import type { Session } from "./session.ts";

type StartMessage = Extract<ConnectorMessage, { type: "start" }>;

/** What the gate needs of a work. */
export interface GatedWork {
  readonly id: string;
  readonly message: StartMessage;
  readonly workspace: Workspace | undefined;
  /** The audit fields every record of this work shares, once computed. */
  auditBase?: AuditBase;
  /** What the check before dispatch found, for the landing check and the outcome record. */
  checked?: Checked;
  /** The request filter set on the call's tab before dispatch (decision 0275). */
  filtered?: Filtered;
  /**
   * What the call was refused inside its page (a frame, a listed tab, a request's address), by
   * host, capabilities and rule, for the audit (decision 0302); at most `MAX_INNER_RECORDS`.
   */
  innerRefusals?: Map<string, InnerRefusal>;
  /** Refusals inside the page beyond those kept. */
  innerOmitted?: number;
}

/** A refusal inside a call's page, as its audit record says it. */
export interface InnerRefusal {
  result: string;
  host: PageHost;
  capabilities: string[];
  rule: string;
}

/** Most refusals inside its page one call records in the audit; more are counted in the last. */
export const MAX_INNER_RECORDS = 8;

/** The fields every audit record of one work shares. */
type AuditBase = Omit<AuditEntry, "kind" | "result" | "host" | "rule">;

/** What the check before dispatch found: the host it decided on and the tab it read it from. */
interface Checked {
  host: PageHost;
  tabId: number | undefined;
  /** Where the tab was navigating to when it was read, when that is another host. */
  pending?: PageHost;
  /**
   * The page a `navigate` with `force` leaves, whose leave-page prompt or open dialog the force
   * answers: it needs what answering that dialog needs (decision 0280).
   */
  leaving?: PageHost;
  /** The tab's browser and its location serial at the look, to tell what was learnt since. */
  look?: { link: BrowserLink; serial: number };
}

/** A call refused before dispatch: the outcome it gets. */
type Refused = { outcome: Outcome };

/**
 * Answers a call the person's controls stop (held, attention, stopped), recording the
 * decision. Nothing reaches the browser.
 */
export async function barredOutcome(
  session: Session,
  work: GatedWork,
  barrier: Barrier,
): Promise<Outcome> {
  const outcome = barrierOutcome(session, barrier);
  const recorded = await recordDecision(session, work, {
    result: barrier.kind,
    host: null,
    rule: barrier.rule,
  });
  return recorded ?? outcome;
}

/**
 * Checks a call whose lane is free, before anything is sent to the browser: the person's
 * controls, the call's restrictions, sacred sites and the policy for the host the call touches
 * (the target of a navigation). The decision is recorded first; a decision that cannot be
 * recorded refuses the call. Returns null when the call may run.
 */
export async function checkBeforeDispatch(
  session: Session,
  work: GatedWork,
): Promise<Refused | null> {
  const { person } = session.deps.governance;
  const barrier = person.barrier(session.holder, work.workspace?.id);
  if (barrier !== null) return { outcome: await barredOutcome(session, work, barrier) };
  const restrictions = readRestrictions(work.message);
  if ("outcome" in restrictions) {
    const recorded = await recordDecision(session, work, {
      result: "denied",
      host: null,
      rule: restrictions.rule,
    });
    return { outcome: recorded ?? restrictions.outcome };
  }
  const located = await locate(session, work);
  if ("outcome" in located) return located;
  work.checked = located;
  // While a navigation is pending, what the call touches may be either page: both must do. A
  // forced navigation also answers the prompt of the page it leaves (decision 0280): its target
  // needs what the move needs, the page it leaves what answering a dialog needs.
  const { tool, arguments: args } = work.message;
  const forced = located.leaving !== undefined;
  const needs = session.deps.catalog.capabilities(tool, forced ? { ...args, force: false } : args);
  const touched = located.pending === undefined ? [located.host] : [located.host, located.pending];
  const hosts = touched.map((host) => ({ host, needs }));
  if (located.leaving !== undefined) hosts.push({ host: located.leaving, needs: ANSWER_DIALOG });
  const decisions = hosts.map(({ host, needs }) => ({
    host,
    decision: decideFor(session, host, needs, restrictions.list),
  }));
  const { host, decision } = decisions.find(({ decision }) => refuses(decision)) ??
    decisions[0];
  const recorded = await recordDecision(session, work, {
    result: decision.verdict,
    host,
    rule: decision.rule,
  });
  if (recorded) return { outcome: recorded };
  const workspace = work.workspace;
  if (refuses(decision)) {
    const opened = workspace !== undefined && person.denied(workspace);
    return { outcome: denialOutcome(session, work, decision, host, opened) };
  }
  if (located.tabId !== undefined) {
    const unfiltered = await filterBeforeDispatch(session, work, restrictions.list, located.tabId);
    if (unfiltered) return { outcome: unfiltered };
  }
  if (workspace) {
    person.allowed(workspace);
    person.began(workspace, callNote(session, work, located.host), located.tabId);
  }
  return null;
}

/**
 * After a call that touched a tab: when the tab now shows another host (a navigation, a
 * redirect, a click on a link), that host must allow reading, since the result describes the
 * page. When it does not, the result is withheld and the call says where it stopped.
 */
export async function checkLanding(
  session: Session,
  work: GatedWork,
  called: Outcome,
): Promise<Outcome> {
  const stopped = stoppedBy(session, work);
  const outcome = withStoppedNote(called, stopped);
  const checked = work.checked;
  if (outcome.kind !== "success" || checked?.tabId === undefined || !work.workspace) {
    return outcome;
  }
  let landed: PageHost;
  let landedUrl: string;
  try {
    const tab = ownedTab(work.workspace, session.deps.browsers, checked.tabId);
    // What the extension said of the tab after the call's last command to it is as fresh as
    // asking now (decision 0190); anything older is not, and the browser is asked.
    const info = checked.look?.link === tab.link
      ? await tab.link.tabSince(tab.native, checked.look.serial)
      : await tab.link.call("tab.get", { tab_id: tab.native });
    landedUrl = info.url;
    landed = hostOfUrl(landedUrl);
  } catch {
    // The tab went away with the call: nothing of a page is left to withhold.
    return outcome;
  }
  if (landed === checked.host) return outcome;
  const decision = decide(session.deps.governance.policy.rules(), {
    principal: session.info.principal,
    host: landed,
    capabilities: ["read"],
    restrictions: readRestrictionsOrNone(work.message),
  });
  const recorded = await recordDecision(session, work, {
    result: decision.verdict,
    host: landed,
    rule: `after the call, on the page it led to: ${decision.rule}`,
  });
  if (recorded) return recorded;
  if (!refuses(decision)) return outcome;
  const opened = session.deps.governance.person.denied(work.workspace);
  // Only a call that acts can have led the tab there; a read saw the page leave by itself.
  if (landed !== null && stopped?.hosts.has(landed) && mayMoveTab(work)) {
    const attention = attentionNote(session, opened);
    return stoppedNavigationOutcome(work, subject(session, work), stopped, attention);
  }
  return landingOutcome(session, work, decision, landedUrl, opened);
}

/** Whether the call does more than read (it may have sent the tab elsewhere). */
function mayMoveTab(work: GatedWork): boolean {
  return work.filtered?.capabilities.some((capability) => capability !== "read") ?? false;
}

/**
 * Records a work's outcome (with `note`, e.g. a cancellation that came after the effect) and notes
 * it for the person; never throws.
 */
export async function recordOutcome(
  session: Session,
  work: GatedWork,
  outcome: Outcome,
  note: string | null = null,
): Promise<void> {
  if (work.workspace && work.checked) {
    session.deps.governance.person.ended(
      work.workspace,
      callNote(session, work, work.checked.host),
      outcome.kind,
    );
  }
  try {
    for (const refusal of innerRecords(work)) {
      await session.deps.governance.audit.append({
        ...auditBaseOf(session, work),
        kind: "decision",
        ...refusal,
      });
    }
    await session.deps.governance.audit.append({
      ...auditBaseOf(session, work),
      kind: "outcome",
      result: outcome.kind,
      host: work.checked?.host ?? null,
      rule: note,
    });
  } catch (error) {
    // The effect, if any, has happened: its caller still hears how it ended. Later calls are
    // refused, since the audit now fails closed.
    log("error", `an outcome could not be audited: ${(error as Error).message}`);
  }
}

/**
 * Writes a decision record. Returns null when it was written, or the refusal the call gets
 * when it could not be: no record, no call.
 */
async function recordDecision(
  session: Session,
  work: GatedWork,
  decision: { result: string; host: PageHost; rule: string },
): Promise<Outcome | null> {
  try {
    await session.deps.governance.audit.append({
      ...auditBaseOf(session, work),
      kind: "decision",
      ...decision,
    });
    return null;
  } catch (error) {
    if (!(error instanceof AuditUnavailable)) throw error;
    return {
      kind: "denied",
      message: `Ghostlight refused this call because its audit could not be written: ` +
        `${error.message}.`,
      next_step: "Nothing was done in the browser. Ask the person to fix the audit file " +
        "('ghostlight status' says what is wrong).",
    };
  }
}

/** The audit fields every record of a work shares; the keyed hashes are made once. */
function auditBaseOf(session: Session, work: GatedWork): AuditBase {
  if (work.auditBase) return work.auditBase;
  const { catalog, governance: { auditKey } } = session.deps;
  const { tool, arguments: args, context } = work.message;
  work.auditBase = {
    principal: session.info.principal,
    client: context.client_name,
    workspace: work.workspace ? auditKey.workspace(work.workspace.id) : null,
    work: work.id,
    tool,
    action: catalog.action(tool, args),
    capabilities: catalog.capabilities(tool, args),
    args: auditKey.arguments(args),
  };
  return work.auditBase;
}

/** The call's restrictions, checked; an invalid one refuses the call with the reason. */
function readRestrictions(
  message: StartMessage,
): { list: Restriction[] } | { outcome: Outcome; rule: string } {
  const list: Restriction[] = [];
  for (const raw of message.context.restrictions ?? []) {
    const parsed = Restriction.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const rule = `the restriction from ${raw.source} is invalid (${
        issue.path.join(".") || "restriction"
      }: ${issue.message})`;
      return {
        rule,
        outcome: {
          kind: "denied",
          message: `Ghostlight refused this call: ${rule}, and a restriction it cannot read ` +
            "is never ignored.",
          next_step: "Fix the restriction: capabilities are read, action, write, execute; " +
            'hosts are names like "example.com", "*.example.com" or "*".',
        },
      };
    }
    list.push(parsed.data);
  }
  return { list };
}

function readRestrictionsOrNone(message: StartMessage): Restriction[] {
  const read = readRestrictions(message);
  return "list" in read ? read.list : [];
}

/**
 * The host a call touches, before anything is sent that reaches a page: the target of a
 * navigation to a URL, else the page in the tab the call names (read from the browser's tab
 * list, which neither attaches to nor reaches the page, or from where the extension last said
 * the tab stands), else none. A tab that is not the
 * workspace's, or cannot be read, ends the call here as its handler would have.
 */
async function locate(session: Session, work: GatedWork): Promise<Checked | Refused> {
  const { arguments: args, tool } = work.message;
  const tabId = typeof args.tabId === "number" ? args.tabId : undefined;
  if (tabId === undefined || !work.workspace) return { host: null, tabId: undefined };
  try {
    const tab = ownedTab(work.workspace, session.deps.browsers, tabId);
    const url = typeof args.url === "string" ? args.url.trim() : "";
    const target = tool === "navigate" && url !== "back" && url !== "forward"
      ? hostOfUrl(normalizeUrl(url))
      : undefined;
    if (target !== undefined && args.force !== true) {
      return { host: target, tabId, look: lookAt(tab.link) };
    }
    // A tab that reports where it stands is not asked (decision 0190).
    const info = tab.link.knownLocation(tab.native)?.tab ??
      await tab.link.call("tab.get", { tab_id: tab.native });
    // A forced navigation answers the prompt of the page it leaves (decision 0280).
    if (target !== undefined) {
      return { host: target, tabId, leaving: hostOfUrl(info.url), look: lookAt(tab.link) };
    }
    // Taken after the look: only what the browser says from here on can tell where the call
    // left the tab.
    const look = lookAt(tab.link);
    const host = hostOfUrl(info.url);
    const pending = info.pending_url === undefined ? host : hostOfUrl(info.pending_url);
    return pending === host ? { host, tabId, look } : { host, tabId, pending, look };
  } catch (error) {
    if (error instanceof BrowserError && error.kind === "not_sent") {
      return {
        outcome: {
          kind: "not_dispatched",
          message: `The browser was not reachable, so nothing was sent (${error.message}).`,
          next_step: "Check that the browser is running and attached ('ghostlight status'), " +
            "then retry.",
        },
      };
    }
    return { outcome: failureOutcome(error, work.workspace) };
  }
}

/** A browser's location serial now. */
function lookAt(link: BrowserLink): { link: BrowserLink; serial: number } {
  return { link, serial: link.locationSerial };
}

/** What answering a page's dialog needs, as the `dialog` tool's row says. */
const ANSWER_DIALOG = capabilitiesFor("dialog", { action: "accept" });

/** The policy's decision for the session's principal needing `capabilities` on `host`. */
function decideFor(
  session: Session,
  host: PageHost,
  capabilities: Capability[],
  restrictions: Restriction[],
): Decision {
  return decide(session.deps.governance.policy.rules(), {
    principal: session.info.principal,
    host,
    capabilities,
    restrictions,
  });
}

/** The person's view of a work: its tool, action and host. */
function callNote(session: Session, work: GatedWork, host: PageHost) {
  const { tool, arguments: args } = work.message;
  return { tool, action: session.deps.catalog.action(tool, args), host };
}

/** A call's name as a sentence starts with it: `computer left_click`, `get_page_text`. */
function subject(session: Session, work: GatedWork): string {
  const { tool, arguments: args } = work.message;
  const action = session.deps.catalog.action(tool, args);
  return action === null ? tool : `${tool} ${action}`;
}

/** The words of a refusal by policy or for a sacred site, naming capability, host and rule. */
function denialOutcome(
  session: Session,
  work: GatedWork,
  decision: Decision,
  host: PageHost,
  opened: boolean,
): Outcome {
  const what = subject(session, work);
  const message = decision.verdict === "sacred"
    ? `${what} would touch ${host}, which Ghostlight never touches whatever the policy says: ` +
      `${decision.rule}.`
    : `${what} needs the ${decision.capability} capability${host === null ? "" : ` on ${host}`}, ` +
      `which is refused (${decision.rule}).`;
  return {
    kind: "denied",
    message: message + attentionNote(session, opened),
    next_step: decision.verdict === "sacred"
      ? "Ask the person to do this part themselves."
      : "Nothing was done. Only the person can change this: do it with what is allowed here, " +
        "or ask them.",
  };
}

/**
 * The words of a call whose tab ended on a host it may not read. The host is the page's choice
 * (it redirected there): it is shown inside the fence, and the reason does not repeat it.
 */
function landingOutcome(
  session: Session,
  work: GatedWork,
  decision: Decision,
  url: string,
  opened: boolean,
): Outcome {
  const host = hostOfUrl(url) ?? "about:blank";
  const why = decision.verdict === "sacred"
    ? `a site Ghostlight never touches (${
      sacredSource(session.deps.governance.policy.rules(), host) ?? "sacred"
    })`
    : `a site where reading is refused (${decision.rule})`;
  const shown = fence(work.workspace!, originOf(url), host);
  return {
    kind: "denied",
    message: `${subject(session, work)} was carried out, but the tab ended on ${why}; ` +
      `nothing from that page is returned. The tab is on:\n${shown}` +
      attentionNote(session, opened),
    next_step: "Navigate the tab back to a site the policy allows, or ask the person.",
  };
}

function attentionNote(session: Session, opened: boolean): string {
  return opened
    ? ` That is ${session.deps.governance.person.attentionAfter} refusals in a row, so ` +
      "Ghostlight now holds this agent until the person looks."
    : "";
}

/** The answer to a call the person's controls stop. */
function barrierOutcome(session: Session, barrier: Barrier): Outcome {
  switch (barrier.kind) {
    case "held":
      return {
        kind: "held",
        message: "this agent is on hold (the person used the Ghostlight popup, a shortcut or " +
          "'ghostlight hold'); nothing was done in the browser.",
        next_step: "Wait, then try again; the person resumes it from the popup or with " +
          "'ghostlight resume'.",
      };
    case "attention":
      return {
        kind: "attention_required",
        message:
          `Ghostlight holds this agent after ${session.deps.governance.person.attentionAfter} ` +
          "refused calls in a row; nothing was done in the browser.",
        next_step: "Stop and tell the person what you were trying to do: they resume you from " +
          "the popup or with 'ghostlight resume' once they have looked.",
      };
    case "stopped":
      return {
        kind: "denied",
        message: "The person stopped this agent: its workspace was ended and its tabs handed " +
          "back; nothing was done in the browser.",
        next_step: "Do not carry on in the browser. The person can let you start again by " +
          "reconnecting this MCP server.",
      };
  }
}

/**
 * The policy as a work's tools see it: in words for `explain` (null while none is set: all
 * open), and the decision for one document inside the work's tabs (a frame, a listed tab).
 */
export function policyView(session: Session, work: GatedWork): PolicyView {
  return {
    refusal: (url, capabilities) => documentRefusal(session, work, url, capabilities),
    words: () => {
      const rules = session.deps.governance.policy.rules();
      return rules.layers.every((layer) => layer === ALL_OPEN)
        ? null
        : describePolicy(rules.layers, rules.builtInSacred);
    },
  };
}

/** Notes a refusal inside the call's page for its audit records, once per host and ask. */
export function noteInnerRefusal(
  work: Pick<GatedWork, "innerRefusals" | "innerOmitted">,
  refusal: InnerRefusal,
): void {
  const refusals = work.innerRefusals ??= new Map();
  const key = JSON.stringify([refusal.result, refusal.host, refusal.capabilities]);
  if (refusals.has(key)) return;
  if (refusals.size < MAX_INNER_RECORDS) refusals.set(key, refusal);
  else work.innerOmitted = (work.innerOmitted ?? 0) + 1;
}

/**
 * The audit records of the refusals inside a work's page: one per host and ask, at most
 * `MAX_INNER_RECORDS`, the last saying how many more there were.
 */
export function innerRecords(work: Pick<GatedWork, "innerRefusals" | "innerOmitted">) {
  const kept = [...work.innerRefusals?.values() ?? []];
  return kept.map((refusal, i) =>
    i === kept.length - 1 && work.innerOmitted
      ? {
        ...refusal,
        rule: `${refusal.rule} (and ${work.innerOmitted} more refused asks inside the page)`,
      }
      : refusal
  );
}

/**
 * Whether a work may touch a document at `url` with `capabilities`: the same `decide()` as the
 * check before dispatch, with the session's principal and the work's restrictions, on that document's host. One
 * place for every question of the kind (a frame inside an allowed page, a tab in a list), so
 * the answer never differs from the gate's. Null when it may.
 */
export function documentRefusal(
  session: Session,
  work: GatedWork,
  url: string,
  capabilities: readonly Capability[],
): Refusal | null {
  const host = hostOfUrl(url);
  const rules = session.deps.governance.policy.rules();
  const decision = decide(rules, {
    principal: session.info.principal,
    host,
    capabilities,
    restrictions: readRestrictionsOrNone(work.message),
  });
  if (!refuses(decision)) return null;
  noteInnerRefusal(work, {
    result: decision.verdict,
    host,
    capabilities: [...capabilities],
    rule: `withheld inside the call's page: ${decision.rule}`,
  });
  if (decision.verdict === "sacred" && host !== null) {
    return {
      sacred: true,
      why: `a site Ghostlight never touches whatever the policy says (${
        sacredSource(rules, host)
      })`,
    };
  }
  return {
    sacred: false,
    why: `a site where ${decision.capability ?? "this"} is refused (${decision.rule})`,
  };
}
