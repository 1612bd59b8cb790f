/**
 * The request filter of the agent's tabs (decision 0275). Before a call on a tab is dispatched,
 * the tab carries the hosts the policy refuses this agent for what the call needs (and for
 * reading, which every request does), so the browser stops a request to one of them before it
 * leaves: a form the call submits, a link it follows, a script's fetch, an image or beacon. The
 * filter stays while the tab is the agent's, so what the page sends by itself is held back too.
 * After the call, its answer says which requests were stopped while it ran, and why.
 *
 * @module
 */

import type { Outcome } from "../../shared/bridge.ts";
import type { NetworkEntry } from "../browser/mod.ts";
import {
  type CallFacts,
  compileNetworkRules,
  decide,
  hostOfUrl,
  type Restriction,
  type Rules,
  sacredSource,
  TooManyNetworkRules,
} from "../governance/mod.ts";
import type { Capability } from "../catalog/mod.ts";
import { MAX_NETWORK_RULES, type NetworkRule } from "../../shared/browser_protocol.ts";
import { failureOutcome, fence, originOf, ownedTab } from "../tools/mod.ts";
import type { Workspace } from "../workspace/mod.ts";
import type { Session } from "./session.ts";
import type { GatedWork } from "./stages.ts";

/** What the filter set before a call, to find the requests the call caused. */
export interface Filtered {
  capabilities: Capability[];
  restrictions: Restriction[];
  /** The tab's last request known before the call (undefined: none yet). */
  before: NetworkEntry | undefined;
  requests: () => readonly NetworkEntry[];
}

/** The URLs whose requests leave the browser, and so can be stopped. */
const NETWORK_URL = /^(https?|wss?):\/\//i;

/** Compiled filters kept per policy in force, by call shape; the oldest go beyond this. */
const MAX_COMPILED = 64;
/** The filters compiled for each policy in force (a reload makes a new one, and a new memo). */
const memo = new WeakMap<Rules, Map<string, NetworkRule[] | TooManyNetworkRules>>();

/**
 * {@linkcode compileNetworkRules}, once per policy in force and call shape: every call on a tab
 * needs its filter, and compiling decides the policy for every domain it names.
 */
function compiled(rules: Rules, call: Omit<CallFacts, "host">): NetworkRule[] {
  let byCall = memo.get(rules);
  if (!byCall) memo.set(rules, byCall = new Map());
  const key = JSON.stringify([call.principal, call.capabilities, call.restrictions]);
  let result = byCall.get(key);
  if (result === undefined) {
    try {
      result = compileNetworkRules(rules, call, MAX_NETWORK_RULES);
    } catch (error) {
      if (!(error instanceof TooManyNetworkRules)) throw error;
      result = error;
    }
    byCall.set(key, result);
    if (byCall.size > MAX_COMPILED) byCall.delete(byCall.keys().next().value!);
  }
  if (result instanceof TooManyNetworkRules) throw result;
  return result;
}

/** Hosts named in one answer's note at most; the rest are counted. */
const MAX_NAMED_HOSTS = 5;

/**
 * Gives the call's tab the request filter for this agent and call, unless it has it already,
 * and returns what was set (null when the extension cannot filter). Returns the refusal when it
 * cannot be set (the browser refused the rules, or the policy names more hosts than the browser
 * can filter): a call whose requests cannot be held back is not sent.
 */
export async function filterBeforeDispatch(
  session: Session,
  work: GatedWork,
  restrictions: Restriction[],
  tabId: number,
): Promise<Filtered | Outcome | null> {
  const workspace = work.workspace;
  if (!workspace) return null;
  const { tool, arguments: args } = work.message;
  const capabilities = [
    ...new Set<Capability>(["read", ...session.deps.catalog.capabilities(tool, args)]),
  ];
  try {
    const tab = ownedTab(workspace, session.deps.browsers, tabId);
    const { policy } = session.deps.governance;
    const call = { principal: session.info.principal, capabilities, restrictions };
    const filtering = await tab.link.filterRequests(
      tab.native,
      () => compiled(policy.rules(), call),
    );
    // An extension that cannot filter stops nothing: no answer may say it did.
    if (!filtering) return null;
    const network = tab.link.tab(tab.native).network;
    return {
      capabilities,
      restrictions,
      before: network.items().at(-1),
      requests: () => network.items(),
    };
  } catch (error) {
    if (error instanceof TooManyNetworkRules) {
      return {
        kind: "denied",
        message: `Ghostlight refused this call: ${error.message}, so requests from the page ` +
          "to refused hosts could not be stopped.",
        next_step: "Nothing was done. Ask the person to name fewer hosts in the policy.",
      };
    }
    return failureOutcome(error, workspace);
  }
}

/**
 * The requests the filter stopped while a call ran (the call's own, and any the page sent
 * meanwhile): how many, and each host's reason.
 */
export interface Stopped {
  count: number;
  /**
   * The first hosts (at most {@linkcode MAX_NAMED_HOSTS}), each with the origin it was asked
   * for and why it is refused, in words that do not repeat the host: the page chose the host
   * (under default-deny, any host is a refused one), so it is shown only inside the fence.
   */
  hosts: Map<string, { origin: string; why: string }>;
  /** The workspace whose fence the hosts are shown in. */
  workspace: Workspace;
  /** Whether a document was among them: a navigation of the tab or a frame was stopped. */
  navigation: boolean;
}

/** How the browser reports a request an extension's rules blocked. */
const BLOCKED = "net::ERR_BLOCKED_BY_CLIENT";

/**
 * What the filter stopped while the call ran, or null when nothing: the requests the browser
 * reported blocked, to a host this filter refuses (another extension blocks with the same
 * words). A request the policy refuses that the browser did not report blocked was not stopped,
 * and no answer may say it was.
 */
export function stoppedBy(
  session: Session,
  workspace: Workspace | undefined,
  filtered: Filtered | undefined,
): Stopped | null {
  if (!filtered || !workspace) return null;
  const requests = filtered.requests();
  const start = filtered.before === undefined ? 0 : requests.indexOf(filtered.before) + 1;
  const rules = session.deps.governance.policy.rules();
  const stopped: Stopped = { count: 0, hosts: new Map(), workspace, navigation: false };
  for (const request of requests.slice(start)) {
    // Only requests to the network: a data: or blob: URL goes nowhere to be stopped.
    if (request.failed !== BLOCKED || !NETWORK_URL.test(request.url)) continue;
    const host = hostOfUrl(request.url);
    if (host === null) continue;
    const decision = decide(rules, {
      principal: session.info.principal,
      host,
      capabilities: filtered.capabilities,
      restrictions: filtered.restrictions,
    });
    if (decision.verdict !== "denied" && decision.verdict !== "sacred") continue;
    stopped.count++;
    if (request.type === "Document") stopped.navigation = true;
    if (!stopped.hosts.has(host) && stopped.hosts.size < MAX_NAMED_HOSTS) {
      stopped.hosts.set(host, {
        origin: originOf(request.url),
        why: decision.verdict === "sacred"
          ? `never touched whatever the policy says (${sacredSource(rules, host) ?? "sacred"})`
          : `the ${decision.capability} capability there is refused (${decision.rule})`,
      });
    }
  }
  return stopped.count === 0 ? null : stopped;
}

/** The note that says what was stopped, each host (the page's choice) inside the fence. */
function stoppedNote(stopped: Stopped): string {
  const { count } = stopped;
  const lines = [...stopped.hosts].map(([host, { origin, why }]) =>
    `- ${fence(stopped.workspace, origin, host)}: ${why}`
  );
  return `Ghostlight stopped ${count} request${count === 1 ? "" : "s"} from the tab while ` +
    `this call ran, before ${count === 1 ? "it" : "they"} left the browser, since the host is ` +
    `refused to you:\n${lines.join("\n")}`;
}

/** The outcome with a note of the requests the filter stopped while the call ran. */
export function withStoppedNote(outcome: Outcome, stopped: Stopped | null): Outcome {
  if (stopped === null) return outcome;
  const note = stoppedNote(stopped);
  if (outcome.kind === "success") {
    return { ...outcome, content: [...outcome.content, { type: "text", text: note }] };
  }
  // A document the filter stopped is why the call failed (the tab shows the browser's page for a
  // blocked request), told by what the browser reported, never by the failure's words: the way
  // on is not to check the address.
  return {
    ...outcome,
    message: `${outcome.message}\n${note}`,
    ...(stopped.navigation ? { next_step: GO_BACK } : {}),
  };
}

/** What to do after the filter stopped the tab's navigation. */
const GO_BACK = 'Navigate the tab back (navigate with url "back") and carry on with what is ' +
  "allowed, or ask the person.";

/**
 * The answer to a call whose navigation (a submission, a followed link) the filter stopped: the
 * tab shows the browser's page for a blocked request, and the host received nothing.
 */
export function stoppedNavigationOutcome(
  work: GatedWork,
  subject: string,
  stopped: Stopped,
  attention: string,
): Outcome {
  // The host is the page's choice (a form's action, a link's address): named only in the note,
  // inside the fence.
  const args = work.message.arguments;
  const lead = work.message.tool === "form_fill" && args.submit === true
    ? "Not submitted: the form sends to a host that is refused to you (named below), so the " +
      "submission was stopped before it left the browser."
    : `${subject} led the tab toward a host that is refused to you (named below), so the ` +
      "request was stopped before it left the browser.";
  return {
    kind: "denied",
    message: `${lead} That host received nothing; the tab shows the browser's page for a ` +
      `blocked request.\n${stoppedNote(stopped)}${attention}`,
    next_step: GO_BACK,
  };
}
