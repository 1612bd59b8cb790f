/**
 * The popup: shows what the service says of the agents (each workspace with its client, colour,
 * state, plan and current call) and the questions a policy's ask puts to the person, and sends
 * the person's hold, take over, resume, stop and answers (decision 0360). It
 * decides nothing and keeps nothing; every click is a request the service answers with the new
 * state. Text from agents (names, plans) is only ever set as text, never as markup.
 *
 * It runs in the popup's page, so this folder is a workspace member checked against the DOM
 * (its `deno.json`); `deno task build:extension` bundles it into `extension/dist/popup.js`.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import { element, showChildren } from "./dom.ts";
import type { GroupColor } from "../../shared/browser_protocol.ts";
import type { PanelRemote } from "../../shared/panel.ts";
import {
  PersonAnswer,
  type PersonGrant,
  type PersonQuestion,
  type PersonRequest,
  type PersonState,
  type PersonWorkspace,
  QuestionAnswer,
} from "../../shared/person.ts";

/** How often the open popup refreshes what it shows. */
const REFRESH_MS = 1_000;

/**
 * How long a guarded card must have been shown unmoved before its guarded buttons take a click,
 * until the service says its setting (`GHOSTLIGHT_ASK_SETTLE_MS`, decision 0560).
 */
const SETTLE_MS = 700;

/** Chrome's tab group colours, as the tab strip shows them. */
const GROUP_COLORS: Record<GroupColor, string> = {
  grey: "#5f6368",
  blue: "#1a73e8",
  red: "#d93025",
  yellow: "#f9ab00",
  green: "#188038",
  pink: "#d01884",
  purple: "#a142f4",
  cyan: "#007b83",
  orange: "#fa903e",
};

const STATE_LABELS: Record<PersonWorkspace["state"], string> = {
  running: "Working",
  idle: "Idle",
  held: "Paused",
  attention: "Needs you",
};

function byId(id: string): HTMLElement {
  return document.getElementById(id)!;
}

/** Asks the service, through the extension's worker. */
async function ask(request: PersonRequest): Promise<PersonAnswer> {
  const raw = await chrome.runtime.sendMessage({ kind: "ghostlight-person", request });
  const answer = PersonAnswer.safeParse(raw);
  return answer.success
    ? answer.data
    : { ok: false, message: "The Ghostlight service gave an answer this popup cannot read." };
}

function ago(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return seconds < 60 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

function callText(call: { tool: string; action: string | null; host: string | null }): string {
  return `${call.tool}${call.action ? ` · ${call.action}` : ""}${
    call.host ? ` on ${call.host}` : ""
  }`;
}

function button(
  label: string,
  op: Extract<PersonRequest, { workspace?: number }>["op"],
  workspace?: number,
  style = "",
): HTMLElement {
  const made = element("button", style, label);
  made.dataset.op = op;
  if (workspace !== undefined) made.dataset.workspace = String(workspace);
  return made;
}

/**
 * A remote agent whose shore is connected (decision 0470): its mark, the host it reaches, its
 * state, and the way to talk to it (the side panel).
 */
function renderRemote(remote: PanelRemote): HTMLElement {
  const card = element("section", "remote");
  card.dataset.remote = remote.name;
  const head = element("div", "row");
  head.append(
    element("span", "remote-mark", "remote"),
    element("span", "principal", `remote:${remote.name}`),
    element("span", "number", remote.working ? "working" : "connected"),
  );
  const talk = element("button", "", "Talk to it");
  talk.dataset.panel = remote.name;
  const actions = element("div", "actions");
  actions.append(talk);
  card.append(head, element("div", "detail", `An agent at ${remote.host}`), actions);
  return card;
}

function renderWorkspace(workspace: PersonWorkspace): HTMLElement {
  const card = element("section", "workspace");
  card.dataset.number = String(workspace.number);
  card.dataset.state = workspace.state;
  card.style.setProperty("--group", GROUP_COLORS[workspace.color]);
  const head = element("div", "row");
  // Named by the principal its connector proved; the client's own name is its claim, set as
  // text (never markup) and marked so (decision 0338).
  // A remote agent's workspace carries the remote mark (decision 0470).
  if (workspace.principal?.startsWith("remote:")) {
    head.append(element("span", "remote-mark", "remote"));
  }
  head.append(
    element("span", "principal", workspace.principal ?? "unnamed"),
    element("span", "number", `#${workspace.number}`),
    element("span", `state ${workspace.state}`, STATE_LABELS[workspace.state]),
  );
  card.append(head, element("div", "claimed", `its client says: ${workspace.client}`));

  const now = element("div", "detail");
  if (workspace.current) {
    now.append("Now: ", element("b", "", callText(workspace.current)));
  } else if (workspace.last) {
    now.append(
      "Last: ",
      element("b", "", callText(workspace.last)),
      ` · ${workspace.last.result.replaceAll("_", " ")} · ${ago(workspace.last.at)}`,
    );
  } else {
    now.textContent = "No call yet.";
  }
  card.append(now);

  if (workspace.plan) {
    const plan = element("div", "detail");
    plan.append(
      "Plan",
      workspace.plan.domains.length > 0 ? ` for ${workspace.plan.domains.join(", ")}` : "",
      ":",
    );
    const steps = element("ol", "plan");
    for (const step of workspace.plan.approach.slice(0, 4)) steps.append(element("li", "", step));
    card.append(plan, steps);
  }

  card.append(
    element(
      "div",
      "detail",
      `${workspace.tabs} tab${workspace.tabs === 1 ? "" : "s"}` +
        (workspace.denials > 0 ? ` · ${workspace.denials} refused in a row` : ""),
    ),
  );

  const actions = element("div", "actions");
  const paused = workspace.state === "held" || workspace.state === "attention";
  // Resume takes Pause's place: a second click meant for Pause must not resume (decision 0560).
  if (paused) card.dataset.guard = `resume ${workspace.number}`;
  actions.append(
    paused
      ? guarded(button("Resume", "resume", workspace.number, "primary"))
      : button("Pause", "hold", workspace.number),
    button("Take over", "take_over", workspace.number),
    button("Stop", "stop", workspace.number, "danger"),
  );
  card.append(actions);
  return card;
}

/** The agent a question or a yes is about: its principal and its workspace's number. */
function agentRow(principal: string, workspace: number | null): HTMLElement {
  const row = element("div", "row");
  row.append(element("span", "principal", principal));
  if (workspace !== null) row.append(element("span", "number", `#${workspace}`));
  return row;
}

/**
 * A remote agent host's own request (decision 0530): its words set apart and marked as the
 * agent's, and only allow once (when it offered that) or deny.
 */
function renderAgentQuestion(
  question: PersonQuestion & { agent: NonNullable<PersonQuestion["agent"]> },
): HTMLElement {
  const card = element("section", "question agent-question");
  card.dataset.question = String(question.number);
  card.dataset.guard = `question ${question.number}`;
  const row = element("div", "row");
  row.append(
    element("span", "principal", question.principal),
    element("span", "remote-mark", "remote"),
  );
  const words = element("div", "detail target", "Its agent host asks, in its own words: ");
  words.append(element("span", "page-text", question.agent.title));
  card.append(
    row,
    element("div", "detail", `Permission for ${question.call} (at ${question.host})`),
    words,
  );
  if (question.agent.kind) card.append(element("div", "claimed", `kind: ${question.agent.kind}`));
  const actions = element("div", "actions");
  const answer = (label: string, choice: QuestionAnswer, style: string) => {
    const made = element("button", style, label);
    made.dataset.question = String(question.number);
    made.dataset.answer = choice;
    return guarded(made);
  };
  if (question.agent.canAllow) actions.append(answer("Allow once", "once", "primary"));
  actions.append(answer("Deny", "deny", "danger"));
  card.append(actions);
  return card;
}

/** One question: who asks for what where, and the person's three answers. */
function renderQuestion(question: PersonQuestion): HTMLElement {
  if (question.agent !== null) return renderAgentQuestion({ ...question, agent: question.agent });
  const card = element("section", "question");
  card.dataset.question = String(question.number);
  card.dataset.guard = `question ${question.number}`;
  card.append(
    agentRow(question.principal, question.workspace),
    element("div", "claimed", `its client says: ${question.client}`),
    element(
      "div",
      "detail",
      `Asks to ${question.capability} on ${question.host}: ${question.call}`,
    ),
  );
  if (question.target) {
    // The page's own words, set apart and marked so: never markup, never Ghostlight's voice.
    const aims = element("div", "detail target", "Aims at, in the page's words: ");
    aims.append(
      element("span", "page-text", `${question.target.role} “${question.target.name}”`),
    );
    card.append(aims);
  }
  const actions = element("div", "actions");
  const answer = (label: string, choice: QuestionAnswer, style = "") => {
    const made = element("button", style, label);
    made.dataset.question = String(question.number);
    made.dataset.answer = choice;
    return guarded(made);
  };
  // "Always" is "on this site for this agent" saved in the policy file (decision 0482).
  const always = answer("Always allow: save in my policy", "site");
  always.dataset.persist = "true";
  actions.append(
    answer("Allow once", "once", "primary"),
    answer("Allow on this site for this agent", "site"),
    always,
    answer("Deny", "deny", "danger"),
  );
  card.append(actions);
  return card;
}

/** One remembered yes: which agent may do what where, and the person's way to forget it. */
function renderGrant(grant: PersonGrant): HTMLElement {
  const card = element("section", "granted");
  card.dataset.grant = String(grant.number);
  const forget = element("button", "", "Forget");
  forget.dataset.revoke = String(grant.number);
  const actions = element("div", "actions");
  actions.append(forget);
  card.append(
    agentRow(grant.principal, grant.workspace),
    element(
      "div",
      "detail",
      `May ${grant.capability} on ${grant.host} until its workspace ends (you allowed it from ` +
        `${grant.by})`,
    ),
    actions,
  );
  return card;
}

/** Marks a button as one that takes a click only once its card has stood still (decision 0560). */
function guarded(made: HTMLElement): HTMLElement {
  made.dataset.guarded = "true";
  return made;
}

/**
 * The guard of decision 0560: each guarded card (`data-guard`, named by what it is) with where it
 * was last seen and since when it has stood there. A card that appears, or whose box moved or
 * changed size since it was last looked at, starts again. `guard.ms` is the service's setting.
 */
const guard = {
  ms: SETTLE_MS,
  cards: new Map<string, { box: string; since: number; moved: boolean }>(),
  timer: undefined as number | undefined,
};

/**
 * Looks at every guarded card now: starts its clock if it is new or moved, marks it
 * `data-steady` once it has stood still for the whole time, and looks again when the next one
 * will be. Run after every change to the page, on scroll and resize, and before a click counts.
 */
function settle(): void {
  const now = performance.now();
  const seen = new Set<string>();
  let next = Infinity;
  for (const card of document.querySelectorAll<HTMLElement>("[data-guard]")) {
    const key = card.dataset.guard!;
    const rect = card.getBoundingClientRect();
    const box = `${rect.x},${rect.y},${rect.width},${rect.height}`;
    seen.add(key);
    let mark = guard.cards.get(key);
    if (mark?.box !== box) {
      mark = { box, since: now, moved: mark !== undefined };
      guard.cards.set(key, mark);
    }
    const steady = now - mark.since >= guard.ms;
    card.toggleAttribute("data-steady", steady);
    if (!steady) next = Math.min(next, mark.since + guard.ms - now);
  }
  for (const key of guard.cards.keys()) if (!seen.has(key)) guard.cards.delete(key);
  clearTimeout(guard.timer);
  guard.timer = next === Infinity ? undefined : setTimeout(settle, next + 1);
}

/**
 * Whether a click on `button` counts: always for an unguarded one; for a guarded one only if its
 * card has stood still long enough, and otherwise the popup says why nothing happened.
 */
function clickCounts(button: HTMLElement): boolean {
  if (button.dataset.guarded !== "true") return true;
  settle();
  const card = button.closest<HTMLElement>("[data-guard]");
  if (card?.hasAttribute("data-steady")) return true;
  const moved = card ? guard.cards.get(card.dataset.guard!)?.moved : false;
  const what = button.dataset.answer ? "question" : "button";
  const then = button.dataset.answer ? "answer it" : "resume";
  byId("said").textContent = `That ${what} just ${moved ? "moved" : "appeared"}; click again ` +
    `to ${then}.`;
  return false;
}

function render(state: PersonState): void {
  guard.ms = state.settleMs ?? SETTLE_MS;
  byId("dot").className = "dot up";
  const connection = byId("connection");
  connection.textContent = `Connected · ${
    state.service.instance ? `instance ${state.service.instance}` : "default instance"
  }`;
  connection.title = `Ghostlight service ${state.service.version}`;
  const count = state.workspaces.length;
  byId("summary").textContent = state.paused
    ? "Every agent is paused"
    : `${count} agent${count === 1 ? "" : "s"} at work`;
  byId("all-hold").hidden = state.paused;
  byId("all-resume").hidden = !state.paused;
  // "Resume all" takes "Pause all"'s place, as an agent's Resume takes its Pause's.
  if (state.paused) byId("bar").dataset.guard = "resume all";
  else delete byId("bar").dataset.guard;
  for (const id of ["all-hold", "all-stop"]) {
    (byId(id) as HTMLButtonElement).disabled = false;
  }

  const banners = byId("banners");
  banners.replaceChildren();
  if (state.policy.problem) {
    banners.append(element("div", "banner bad", `Policy problem: ${state.policy.problem}`));
  }
  if (!state.audit.ok) {
    banners.append(
      element("div", "banner bad", `Audit stopped, every call is refused: ${state.audit.error}`),
    );
  }
  if (state.workspaces.some((workspace) => workspace.state === "attention")) {
    banners.append(
      element(
        "div",
        "banner warn",
        `An agent had ${state.attentionAfter} calls refused in a row and waits for you: ` +
          "resume it, or stop it.",
      ),
    );
  }

  // Refreshed in place, so that a button the person is pressing stays under the pointer.
  showChildren(byId("questions"), state.questions.map(renderQuestion), (el) => el.dataset.question);
  showChildren(byId("granted"), state.granted.map(renderGrant), (el) => el.dataset.grant);
  showChildren(byId("remotes"), (state.remotes ?? []).map(renderRemote), (el) => el.dataset.remote);
  showChildren(
    byId("workspaces"),
    count === 0
      ? [element("div", "empty", "No agent is working in this browser.")]
      : state.workspaces.map(renderWorkspace),
    (el) => el.dataset.number ?? el.className,
  );
  byId("policy").textContent = `Policy: ${state.policy.summary}`;
  const audit = byId("audit");
  audit.textContent = state.audit.ok
    ? "Audit: recording every call ('ghostlight audit tail')"
    : "Audit: not writing";
  audit.title = state.audit.file;
}

function renderDown(message: string): void {
  byId("dot").className = "dot down";
  byId("connection").textContent = message;
  byId("summary").textContent = "";
  for (const id of ["all-hold", "all-stop"]) {
    (byId(id) as HTMLButtonElement).disabled = true;
  }
  byId("workspaces").replaceChildren(
    element(
      "div",
      "empty",
      "Ghostlight's controls appear here once the service is running. 'ghostlight doctor' " +
        "checks every link.",
    ),
  );
}

async function refresh(request: PersonRequest = { op: "state" }): Promise<void> {
  const answer = await ask(request);
  if (answer.ok) {
    render(answer.state);
    if (answer.said) byId("said").textContent = answer.said;
  } else if (request.op === "state") {
    renderDown(answer.message);
  } else {
    byId("said").textContent = answer.message;
  }
  settle();
}

document.addEventListener("click", (event) => {
  const target = (event.target as HTMLElement).closest("button");
  // The guard is for the person's pointer: a script's click aims at nothing (decision 0560).
  if (target && event.isTrusted && !clickCounts(target)) return;
  const choice = QuestionAnswer.safeParse(target?.dataset.answer);
  // An answer is the person's click only: no script's synthetic event answers (decision 0360).
  if (target && choice.success && event.isTrusted) {
    const question = Number(target.dataset.question);
    refresh(
      target.dataset.persist === "true"
        ? { op: "answer", question, answer: choice.data, persist: true }
        : { op: "answer", question, answer: choice.data },
    );
    return;
  }
  // Forgetting a yes is the person's click too: a page's script could not reach it anyway.
  if (target?.dataset.revoke && event.isTrusted) {
    refresh({ op: "revoke", grant: Number(target.dataset.revoke) });
    return;
  }
  // The side panel opens on the person's click only; Chrome wants it opened within the click's
  // gesture, so the window is known beforehand.
  if (target?.dataset.panel && event.isTrusted && popupWindow !== undefined) {
    chrome.sidePanel.open({ windowId: popupWindow })
      .catch((error) => byId("said").textContent = `The side panel did not open: ${error.message}`);
    return;
  }
  if (!target?.dataset.op) return;
  const op = target.dataset.op as Extract<PersonRequest, { workspace?: number }>["op"];
  const workspace = target.dataset.workspace ? Number(target.dataset.workspace) : undefined;
  refresh(workspace === undefined ? { op } : { op, workspace });
});

/** The window the popup belongs to, where "Talk to it" opens the side panel. */
let popupWindow: number | undefined;
chrome.windows.getCurrent().then((window) => popupWindow = window.id).catch(() => {});

// The person scrolling or resizing moves every card: each guarded one starts again.
addEventListener("scroll", settle, { capture: true, passive: true });
addEventListener("resize", settle);
refresh();
setInterval(() => refresh(), REFRESH_MS);
