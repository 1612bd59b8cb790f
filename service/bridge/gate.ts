/**
 * The governance stages of a call (decision 0325; their order is `call_stages.ts`): what the
 * person's controls and the policy say before anything is sent to the browser, the landing check
 * after a call that may have moved its tab, and the audit record of each decision and each
 * outcome. The decision is `decide()`'s and the person's
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
  type ElementLabel,
  failureOutcome,
  fence,
  normalizeUrl,
  originOf,
  ownedTab,
  type PolicyView,
  refLabel,
  type Refusal,
} from "../tools/mod.ts";
import {
  filterBeforeDispatch,
  type Filtered,
  stoppedBy,
  stoppedNavigationOutcome,
  withStoppedNote,
} from "./request_filter.ts";
import type { Session } from "./session.ts";
import { askThePerson, behindOpenQuestion, stillAsking, yesFor } from "./ask_person.ts";
import type { CallRecord, Ended, GatedWork, Verdict } from "./stages.ts";

/** A call refused before dispatch: the outcome it gets. */
type Refused = { outcome: Outcome };

type StartMessage = Extract<ConnectorMessage, { type: "start" }>;

/**
 * The refusals inside one work's page (a frame, a listed tab, a request's address), by host,
 * capabilities and rule, for its audit (decision 0302): at most `MAX_INNER_RECORDS`, the rest
 * counted. Noted while the handler runs, read when the outcome is recorded.
 */
export class InnerRefusals {
  readonly #kept = new Map<string, InnerRefusal>();
  #omitted = 0;

  /** Notes a refusal, once per host and ask. */
  note(refusal: InnerRefusal): void {
    const key = JSON.stringify([refusal.result, refusal.host, refusal.capabilities]);
    if (this.#kept.has(key)) return;
    if (this.#kept.size < MAX_INNER_RECORDS) this.#kept.set(key, refusal);
    else this.#omitted++;
  }

  /** The audit records: one per host and ask, the last saying how many more there were. */
  records(): InnerRefusal[] {
    const kept = [...this.#kept.values()];
    return kept.map((refusal, i) =>
      i === kept.length - 1 && this.#omitted
        ? {
          ...refusal,
          rule: `${refusal.rule} (and ${this.#omitted} more refused asks inside the page)`,
        }
        : refusal
    );
  }
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

/** What the `locate` stage found: the host the call touches and the tab it read it from. */
export interface Located {
  readonly host: PageHost;
  readonly tabId: number | undefined;
  /** Where the tab was navigating to when it was read, when that is another host. */
  readonly pending?: PageHost;
  /**
   * The page a `navigate` with `force` leaves, whose leave-page prompt or open dialog the force
   * answers: it needs what answering that dialog needs (decision 0280).
   */
  readonly leaving?: PageHost;
  /**
   * The hosts read from the tab, with the URL each was read from: the page's choice (it can
   * move itself anywhere), so an answer shows them only inside the fence. The target of the
   * agent's own navigation is not among them.
   */
  readonly fromTab: ReadonlyMap<string, string>;
  /** The tab's browser and its location serial at the look, to tell what was learnt since. */
  readonly look?: { link: BrowserLink; serial: number };
}

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

/** The `hold` stage: the person's controls (stopped, held, attention), recorded when they stop. */
export async function holdOrPass(record: CallRecord): Promise<Verdict> {
  const { session, work } = record;
  const barrier = session.deps.governance.person.barrier(session.holder, work.workspace?.id);
  if (barrier === null) return { record };
  return { outcome: await barredOutcome(session, work, barrier) };
}

/** The `restrictions` stage: the call's restrictions, read; one it cannot read refuses it. */
export async function readRestrictionsStage(record: CallRecord): Promise<Verdict> {
  const { session, work } = record;
  const restrictions = readRestrictions(work.message);
  if ("list" in restrictions) return { record: { ...record, restrictions: restrictions.list } };
  const recorded = await recordDecision(session, work, {
    result: "denied",
    host: null,
    rule: restrictions.rule,
  });
  return { outcome: recorded ?? restrictions.outcome };
}

/** The `locate` stage: the host the call touches, before anything that reaches a page. */
export async function locateHost(record: CallRecord): Promise<Verdict> {
  const located = await locate(record.session, record.work);
  return "outcome" in located ? located : { record: { ...record, located } };
}

/**
 * The `decision` stage: the policy (sacred sites, grants, the call's restrictions) for every
 * host the call touches (the target of a navigation; while a navigation is pending, both pages;
 * for a forced one, the page it leaves, which needs what answering a dialog needs, decision
 * 0280). The decision is recorded first; a decision that cannot be recorded refuses the call.
 */
export async function decideAndRecord(record: CallRecord): Promise<Verdict> {
  const { session, work } = record;
  // One question per workspace at a time: its other calls wait behind it (decision 0360).
  if (!(await behindOpenQuestion(record))) {
    const outcome = stillAsking(session);
    const recorded = await recordDecision(session, work, {
      result: "denied",
      host: null,
      rule: "waited behind an open question to the person, which outlasted the bound",
    });
    return { outcome: recorded ?? outcome };
  }
  // Each yes covers one host and capability: a call asks at most once for each.
  for (let asked = 0;; asked++) {
    const { host, decision } = decideHosts(record);
    if (decision.verdict === "ask" && decision.capability !== null && host !== null) {
      if (asked >= MAX_QUESTIONS_PER_CALL) throw new Error("a yes did not answer its own ask");
      const answer = await askThePerson(
        record,
        host,
        { ...decision, capability: decision.capability },
        (entry) => recordDecision(session, work, entry),
        `${subject(session, work)} on ${host}`,
        aimedAt(work),
      );
      if (answer.kind === "yes") {
        // The person's controls may have changed while the call waited: read them again.
        const barrier = session.deps.governance.person.barrier(session.holder, work.workspace?.id);
        if (barrier !== null) return { outcome: await barredOutcome(session, work, barrier) };
        continue;
      }
      if (answer.kind === "ended") return { outcome: answer.outcome };
      const refused = { ...decision, verdict: "denied" as const, rule: answer.rule };
      return { outcome: refusedOutcome(record, host, refused, answer.counts) };
    }
    const recorded = await recordDecision(session, work, {
      result: decision.verdict,
      host,
      rule: decision.rule,
    });
    if (recorded) return { outcome: recorded };
    if (!refuses(decision)) return { record };
    return { outcome: refusedOutcome(record, host, decision, true) };
  }
}

/** Most questions one call may put to the person: one per host and capability it needs. */
const MAX_QUESTIONS_PER_CALL = 12;

/**
 * The decision for each host the call touches; the one to act on: a refusal first, then an ask,
 * else the first host's.
 */
function decideHosts(record: CallRecord): { host: PageHost; decision: Decision } {
  const { session, work } = record;
  const located = need(record.located, "locate");
  const restrictions = need(record.restrictions, "restrictions");
  const { tool, arguments: args } = work.message;
  const forced = located.leaving !== undefined;
  const needs = session.deps.catalog.capabilities(tool, forced ? { ...args, force: false } : args);
  const touched = located.pending === undefined ? [located.host] : [located.host, located.pending];
  const hosts = touched.map((host) => ({ host, needs }));
  if (located.leaving !== undefined) hosts.push({ host: located.leaving, needs: ANSWER_DIALOG });
  const yes = yesFor(session, work);
  const decisions = hosts.map(({ host, needs }) => ({
    host,
    decision: decideFor(session, host, needs, [...restrictions], yes),
  }));
  return decisions.find(({ decision }) => refuses(decision) && decision.verdict !== "ask") ??
    decisions.find(({ decision }) => decision.verdict === "ask") ?? decisions[0];
}

/** The refusal of a call by the policy or the person, counted by the attention circuit. */
function refusedOutcome(
  record: CallRecord,
  host: PageHost,
  decision: Decision,
  counts: boolean,
): Outcome {
  const { session, work } = record;
  const opened = counts && work.workspace !== undefined &&
    session.deps.governance.person.denied(work.workspace);
  const tabUrl = host === null ? undefined : need(record.located, "locate").fromTab.get(host);
  return denialOutcome(session, work, decision, { host, tabUrl }, opened);
}

/** The `filter` stage: the call's tab gets the request filter for this agent and call. */
export async function filterRequests(record: CallRecord): Promise<Verdict> {
  const tabId = need(record.located, "locate").tabId;
  if (tabId === undefined) return { record };
  const restrictions = [...need(record.restrictions, "restrictions")];
  const filtered = await filterBeforeDispatch(record.session, record.work, restrictions, tabId);
  if (filtered === null) return { record };
  return "kind" in filtered ? { outcome: filtered } : { record: { ...record, filtered } };
}

/** The `begin` stage: the person's view of the workspace shows the call as begun. */
export function markBegun(record: CallRecord): Verdict {
  const { session, work } = record;
  const located = need(record.located, "locate");
  if (work.workspace) {
    const { person } = session.deps.governance;
    person.allowed(work.workspace);
    person.began(work.workspace, callNote(session, work, located.host), located.tabId);
  }
  return { record };
}

/** What an earlier stage put in the record; a list out of order is a fault of the service. */
function need<T>(value: T | undefined, stage: string): T {
  if (value === undefined) throw new Error(`the ${stage} stage has not run before this one`);
  return value;
}

/** The `landing` stage, on the way out: see {@linkcode checkLanding}. */
export function withLanding(record: CallRecord, { outcome }: Ended): Promise<Outcome> {
  return checkLanding(record, outcome);
}

/** The `outcome` stage, on the way out: a step's outcome record (a call's waits its settling). */
export async function stepAudit(record: CallRecord, ended: Ended): Promise<Outcome> {
  if (record.step) {
    await recordOutcome(record.session, record.work, ended.record.located, ended.outcome);
  }
  return ended.outcome;
}

/**
 * After a call that touched a tab: when the tab now shows another host (a navigation, a
 * redirect, a click on a link), that host must allow reading, since the result describes the
 * page. When it does not, the result is withheld and the call says where it stopped.
 */
export async function checkLanding(record: CallRecord, called: Outcome): Promise<Outcome> {
  const { session, work, located: checked } = record;
  const stopped = stoppedBy(session, work.workspace, record.filtered);
  const outcome = withStoppedNote(called, stopped);
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
    restrictions: [...record.restrictions ?? []],
    yes: yesFor(session, work),
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
  if (landed !== null && stopped?.hosts.has(landed) && mayMoveTab(record.filtered)) {
    const attention = attentionNote(session, opened);
    return stoppedNavigationOutcome(work, subject(session, work), stopped, attention);
  }
  return landingOutcome(session, work, decision, landedUrl, opened);
}

/** Whether the call does more than read (it may have sent the tab elsewhere). */
function mayMoveTab(filtered: Filtered | undefined): boolean {
  return filtered?.capabilities.some((capability) => capability !== "read") ?? false;
}

/**
 * Records a work's outcome (with `note`, e.g. a cancellation that came after the effect) on the
 * host the call was located on, and notes it for the person; never throws.
 */
export async function recordOutcome(
  session: Session,
  work: GatedWork,
  located: Located | undefined,
  outcome: Outcome,
  note: string | null = null,
): Promise<void> {
  if (work.workspace && located) {
    session.deps.governance.person.ended(
      work.workspace,
      callNote(session, work, located.host),
      outcome.kind,
    );
  }
  try {
    for (const refusal of work.inner.records()) {
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
      host: located?.host ?? null,
      rule: note,
    });
  } catch (error) {
    // The effect, if any, has happened: its caller still hears how it ended. Later calls are
    // refused, since the audit now fails closed.
    log("error", `an outcome could not be audited: ${(error as Error).message}`);
  }
}

/**
 * What a dry run can say of a call without touching a page: the person's controls now, and that
 * the policy is decided for the page the call touches when it runs.
 */
export function previewFor(session: Session, work: GatedWork): { allowed: boolean; why: string } {
  const barrier = session.deps.governance.person.barrier(session.holder, work.workspace?.id);
  if (barrier !== null) return { allowed: false, why: barrier.rule };
  return {
    allowed: true,
    why: "the person's controls allow it now; the policy decides each step for the page it " +
      "touches when it runs",
  };
}

/**
 * Writes a decision record. Returns null when it was written, or the refusal the call gets
 * when it could not be: no record, no call.
 */
export async function recordDecision(
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

/** Each work's shared audit fields, made once: the keyed hashes are not free. */
const auditBases = new WeakMap<GatedWork, AuditBase>();

/** The audit fields every record of a work shares; the keyed hashes are made once. */
function auditBaseOf(session: Session, work: GatedWork): AuditBase {
  const known = auditBases.get(work);
  if (known) return known;
  const { catalog, governance: { auditKey } } = session.deps;
  const { tool, arguments: args, context } = work.message;
  const base: AuditBase = {
    principal: session.info.principal,
    client: context.client_name,
    workspace: work.workspace ? auditKey.workspace(work.workspace.id) : null,
    work: work.id,
    tool,
    action: catalog.action(tool, args),
    capabilities: catalog.capabilities(tool, args),
    args: auditKey.arguments(args),
  };
  auditBases.set(work, base);
  return base;
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
async function locate(session: Session, work: GatedWork): Promise<Located | Refused> {
  const { arguments: args, tool } = work.message;
  const tabId = typeof args.tabId === "number" ? args.tabId : undefined;
  if (tabId === undefined || !work.workspace) {
    return { host: null, tabId: undefined, fromTab: new Map() };
  }
  try {
    const tab = ownedTab(work.workspace, session.deps.browsers, tabId);
    const url = typeof args.url === "string" ? args.url.trim() : "";
    const target = tool === "navigate" && url !== "back" && url !== "forward"
      ? hostOfUrl(normalizeUrl(url))
      : undefined;
    if (target !== undefined && args.force !== true) {
      return { host: target, tabId, fromTab: new Map(), look: lookAt(tab.link) };
    }
    // A tab that reports where it stands is not asked (decision 0190).
    const info = tab.link.knownLocation(tab.native)?.tab ??
      await tab.link.call("tab.get", { tab_id: tab.native });
    const host = hostOfUrl(info.url);
    const fromTab = new Map<string, string>(host === null ? [] : [[host, info.url]]);
    // A forced navigation answers the prompt of the page it leaves (decision 0280).
    if (target !== undefined) {
      return { host: target, tabId, leaving: host, fromTab, look: lookAt(tab.link) };
    }
    // Taken after the look: only what the browser says from here on can tell where the call
    // left the tab.
    const look = lookAt(tab.link);
    const pending = info.pending_url === undefined ? host : hostOfUrl(info.pending_url);
    if (pending === host) return { host, tabId, fromTab, look };
    if (pending !== null) fromTab.set(pending, info.pending_url!);
    return { host, tabId, pending, fromTab, look };
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
  yes: (host: string, capability: Capability) => string | null,
): Decision {
  return decide(session.deps.governance.policy.rules(), {
    principal: session.info.principal,
    host,
    capabilities,
    restrictions,
    yes,
  });
}

/** The person's view of a work: its tool, action and host. */
function callNote(session: Session, work: GatedWork, host: PageHost) {
  const { tool, arguments: args } = work.message;
  return { tool, action: session.deps.catalog.action(tool, args), host };
}

/** A call's name as a sentence starts with it: `computer left_click`, `get_page_text`. */
/**
 * The element a call aims at by ref, as the read that gave the ref out named it, or null: the
 * question is asked before the browser is reached, so the name is remembered, never read now
 * (decision 0481).
 */
function aimedAt(work: GatedWork): ElementLabel | null {
  const { ref, tabId } = work.message.arguments as { ref?: unknown; tabId?: unknown };
  if (!work.workspace || typeof ref !== "string" || typeof tabId !== "number") return null;
  return refLabel(work.workspace, tabId, ref);
}

function subject(session: Session, work: GatedWork): string {
  const { tool, arguments: args } = work.message;
  const action = session.deps.catalog.action(tool, args);
  return action === null ? tool : `${tool} ${action}`;
}

/**
 * The words of a refusal by policy or for a sacred site, naming capability, host and rule. A
 * host read from the tab (`tabUrl`) is the page's choice: it is shown inside the fence, and the
 * reason does not repeat it; the target of the agent's own navigation is named as it is.
 */
function denialOutcome(
  session: Session,
  work: GatedWork,
  decision: Decision,
  where: { host: PageHost; tabUrl: string | undefined },
  opened: boolean,
): Outcome {
  const what = subject(session, work);
  const { host, tabUrl } = where;
  const paged = tabUrl !== undefined && host !== null;
  const named = paged ? "the page in its tab" : host;
  const message = decision.verdict === "sacred"
    ? `${what} would touch ${named}, which Ghostlight never touches whatever the policy says: ` +
      `${paged ? sacredSource(session.deps.governance.policy.rules(), host) : decision.rule}.`
    : `${what} needs the ${decision.capability} capability${named === null ? "" : ` on ${named}`}` +
      `, which is refused (${decision.rule}).`;
  const shown = paged ? ` The tab is on:\n${fence(work.workspace!, originOf(tabUrl), host)}` : "";
  return {
    kind: "denied",
    message: message + attentionNote(session, opened) + shown,
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
    yes: yesFor(session, work),
  });
  if (!refuses(decision)) return null;
  work.inner.note({
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
