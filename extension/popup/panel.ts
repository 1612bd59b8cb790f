/**
 * The side panel (issue 31, decision 0470): the person picks a remote agent, types a request,
 * and watches the turn: the agent's streamed reply, each tool call the remote shore served it in
 * this browser with how it ended, and Stop. It decides nothing and keeps nothing: every request
 * goes through the extension's worker to the service, which relays it to the remote's shore; the
 * turn's updates are fetched from the service, numbered, as they come. Only the person's own
 * input sends (a trusted click or key press), and everything the agent or a page said is set as
 * text, never as markup.
 *
 * Bundled into `extension/dist/panel.js` by `deno task build:extension`.
 *
 * @module
 */

/// <reference types="@types/chrome" />

import { element } from "./dom.ts";
import {
  PanelAnswer,
  type PanelRemote,
  type PanelRequest,
  type TurnUpdate,
} from "../../shared/panel.ts";

/** How often the open panel asks for the turn's new updates while one runs, and otherwise. */
const POLL_MS = 300;
const IDLE_POLL_MS = 1_000;

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id)! as T;
}

/** Asks the service, through the extension's worker. */
async function ask(request: PanelRequest): Promise<PanelAnswer> {
  let raw: unknown;
  try {
    raw = await chrome.runtime.sendMessage({ kind: "ghostlight-panel", request });
  } catch (error) {
    return { ok: false, message: `The extension did not answer: ${(error as Error).message}` };
  }
  const answer = PanelAnswer.safeParse(raw);
  if (answer.success) return answer.data;
  const said = (raw as { message?: unknown } | undefined)?.message;
  return {
    ok: false,
    message: typeof said === "string"
      ? said.slice(0, 1_000)
      : "The Ghostlight service gave an answer this panel cannot read.",
  };
}

/** What the panel shows now: the remote picked and where its updates were read up to. */
const shown = { remote: "", next: 0, working: false };

const transcript = byId("transcript");

function scrollDown(): void {
  transcript.scrollTop = transcript.scrollHeight;
}

function toolLine(update: Extract<TurnUpdate, { kind: "tool" }>): HTMLElement {
  const row = element("div", "tool");
  row.dataset.call = String(update.call);
  row.dataset.status = update.status;
  const label = update.status === "running"
    ? "running"
    : update.status === "done"
    ? "done"
    : "failed";
  row.append(
    element("span", "name", `${update.tool}${update.action ? ` · ${update.action}` : ""}`),
    " — ",
    element("span", "status", label),
  );
  if (update.outcome) row.append(": ", element("span", "outcome", update.outcome));
  return row;
}

function endText(update: Extract<TurnUpdate, { kind: "end" }>): string {
  const reason = update.reason === "end_turn"
    ? "Done."
    : update.reason === "cancelled"
    ? "Stopped."
    : `Ended (${update.reason}).`;
  return update.message ? `${reason} ${update.message}` : reason;
}

function show(update: TurnUpdate): void {
  switch (update.kind) {
    case "you":
      transcript.append(element("div", "you", update.text));
      return;
    case "text": {
      const last = transcript.lastElementChild;
      if (last?.classList.contains("agent")) last.append(update.text);
      else transcript.append(element("div", "agent", update.text));
      return;
    }
    case "tool": {
      const row = toolLine(update);
      const before = transcript.querySelector(`.tool[data-call="${update.call}"]`);
      if (before) before.replaceWith(row);
      else transcript.append(row);
      return;
    }
    case "stopping":
      transcript.append(element("div", "note", "Stop sent to the agent."));
      return;
    case "skipped":
      transcript.append(element("div", "note", `${update.count} more updates were not shown.`));
      return;
    case "end":
      transcript.append(element("div", "end", endText(update)));
  }
}

function renderRemotes(remotes: PanelRemote[]): void {
  const select = byId<HTMLSelectElement>("remote");
  const names = remotes.map((remote) => remote.name).join(",");
  if (select.dataset.names !== names) {
    select.dataset.names = names;
    select.replaceChildren(
      ...remotes.map((remote) => {
        const option = element("option", "", remote.name) as HTMLOptionElement;
        option.value = remote.name;
        return option;
      }),
    );
    if (remotes.some((remote) => remote.name === shown.remote)) select.value = shown.remote;
  }
  const picked = remotes.find((remote) => remote.name === select.value);
  const state = byId("remote-state");
  if (picked === undefined) {
    state.textContent = "No remote agent is configured: 'ghostlight remote add' adds one.";
  } else {
    state.textContent = `${picked.host} · ${
      picked.connected
        ? picked.working ? "working" : "connected"
        : `not connected ('ghostlight remote start ${picked.name}')`
    }`;
  }
  shown.working = picked?.working ?? false;
  byId<HTMLButtonElement>("send").disabled = !picked?.connected || shown.working;
  byId<HTMLButtonElement>("stop").disabled = !shown.working;
}

let inFlight: Promise<void> | null = null;

/** Asks for the picked remote's new updates and shows them; one fetch at a time. */
function refresh(): Promise<void> {
  inFlight ??= refreshOnce().finally(() => inFlight = null);
  return inFlight;
}

async function refreshOnce(): Promise<void> {
  const picked = byId<HTMLSelectElement>("remote").value;
  if (picked !== shown.remote) {
    shown.remote = picked;
    shown.next = 0;
    transcript.replaceChildren();
  }
  const answer = await ask({
    op: "panel",
    ...(picked ? { remote: picked } : {}),
    after: shown.next,
  });
  if (!answer.ok) {
    byId("remote-state").textContent = answer.message;
    byId<HTMLButtonElement>("send").disabled = true;
    return;
  }
  // A remote picked meanwhile: these updates are not its.
  if ((answer.remote ?? "") !== shown.remote) return renderRemotes(answer.remotes);
  if (answer.next < shown.next) {
    // The service started again: its numbering did too.
    transcript.replaceChildren();
  }
  if (answer.dropped > 0) {
    transcript.append(
      element("div", "note", `${answer.dropped} earlier updates are no longer kept.`),
    );
  }
  for (const { update } of answer.updates) show(update);
  if (answer.updates.length > 0) scrollDown();
  shown.next = answer.next;
  renderRemotes(answer.remotes);
  if (!shown.remote && answer.remotes.length > 0) await refreshOnce();
}

async function send(): Promise<void> {
  const prompt = byId<HTMLTextAreaElement>("prompt");
  const answer = await ask({ op: "panel_prompt", remote: shown.remote, text: prompt.value });
  byId("said").textContent = answer.ok ? answer.said : answer.message;
  if (answer.ok) prompt.value = "";
  await refresh();
}

async function stop(): Promise<void> {
  const answer = await ask({ op: "panel_stop", remote: shown.remote });
  byId("said").textContent = answer.ok ? answer.said : answer.message;
  await refresh();
}

// Only the person sends: a script's synthetic click or key press is not heard.
byId("send").addEventListener("click", (event) => {
  if (event.isTrusted) send();
});
byId("stop").addEventListener("click", (event) => {
  if (event.isTrusted) stop();
});
byId("prompt").addEventListener("keydown", (event) => {
  if (event.isTrusted && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    if (!byId<HTMLButtonElement>("send").disabled) send();
  }
});
byId("ask").addEventListener("submit", (event) => event.preventDefault());
byId("remote").addEventListener("change", () => refresh());

/** One refresh at a time, then the next after {@linkcode POLL_MS} (or, idle, a second). */
async function poll(): Promise<void> {
  try {
    await refresh();
  } finally {
    setTimeout(poll, shown.working ? POLL_MS : IDLE_POLL_MS);
  }
}
poll();
