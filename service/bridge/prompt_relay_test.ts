import type { ServiceMessage } from "../../shared/bridge.ts";
import {
  KEPT_CHARS,
  KEPT_UPDATES,
  PANEL_PAGE,
  type PanelAnswer,
  PROMPT_MAX_CHARS,
} from "../../shared/panel.ts";
import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { PromptRelay, type PromptShore } from "./prompt_relay.ts";

function shoreOf(remote: string): PromptShore & { sent: ServiceMessage[] } {
  const sent: ServiceMessage[] = [];
  return { remote, host: "agents.example.com:443", sent, send: (message) => sent.push(message) };
}

function ok(answer: PanelAnswer): Extract<PanelAnswer, { ok: true }> {
  assert(answer.ok, `refused: ${JSON.stringify(answer)}`);
  return answer;
}

Deno.test("a prompt goes to its remote's shore, one turn at a time, and Stop follows it", async () => {
  const relay = new PromptRelay(() =>
    Promise.resolve([{ name: "agent", host: "agents.example.com:443" }, {
      name: "idle",
      host: "idle.example.com:443",
    }])
  );
  const notYet = await relay.answer({ op: "panel_prompt", remote: "agent", text: "hello" });
  assertEquals(notYet.ok, false);
  assertMatch((notYet as { message: string }).message, /ghostlight remote start agent/);

  const shore = shoreOf("agent");
  relay.ready(shore);
  const listed = ok(await relay.answer({ op: "panel" }));
  assertEquals(listed.remotes.map((r) => [r.name, r.connected]), [["agent", true], [
    "idle",
    false,
  ]]);
  ok(await relay.answer({ op: "panel_prompt", remote: "agent", text: "  open the log  " }));
  assertEquals(shore.sent, [{ type: "prompt", turn: 1, text: "open the log" }]);
  const second = await relay.answer({ op: "panel_prompt", remote: "agent", text: "again" });
  assertEquals(second.ok, false, "a second request while the first runs is refused");
  assertEquals(shore.sent.length, 1);

  // Only the ready shore's updates of the running turn are kept.
  const stranger = shoreOf("agent");
  relay.update(stranger, 1, { kind: "text", text: "not from its shore" });
  relay.update(shore, 7, { kind: "text", text: "not this turn" });
  relay.update(shore, 1, { kind: "text", text: "Opening" });
  ok(await relay.answer({ op: "panel_stop", remote: "agent" }));
  assertEquals(shore.sent.at(-1), { type: "prompt_stop", turn: 1 });
  relay.update(shore, 1, { kind: "end", reason: "cancelled", message: null });
  const seen = ok(await relay.answer({ op: "panel", remote: "agent", after: 0 }));
  assertEquals(seen.updates.map((u) => u.update.kind), ["you", "text", "stopping", "end"]);
  assertEquals(seen.next, 4);
  assertEquals(ok(await relay.answer({ op: "panel", remote: "agent", after: 4 })).updates, []);
  const stopAgain = await relay.answer({ op: "panel_stop", remote: "agent" });
  assertEquals(stopAgain.ok, false, "nothing runs to stop");

  // The shore's connection ends mid-turn: the turn ends, saying why.
  ok(await relay.answer({ op: "panel_prompt", remote: "agent", text: "next" }));
  relay.gone(shore);
  const after = ok(await relay.answer({ op: "panel", remote: "agent", after: 4 }));
  assertEquals(after.updates.at(-1)?.update.kind, "end");
  assertEquals(after.remotes.find((r) => r.name === "agent")?.connected, false);
});

Deno.test("the relay's bounds: request size, kept updates and characters, one page", async () => {
  const relay = new PromptRelay();
  const shore = shoreOf("agent");
  relay.ready(shore);
  const tooLong = await relay.answer({
    op: "panel_prompt",
    remote: "agent",
    text: "x".repeat(PROMPT_MAX_CHARS + 1),
  });
  assertEquals(tooLong.ok, false);
  assertMatch((tooLong as { message: string }).message, /at most 8,000 characters/);
  assertEquals(shore.sent, []);
  const bad = await relay.answer({ op: "panel_prompt", remote: "Not A Name", text: "x" });
  assertEquals(bad.ok, false);

  ok(await relay.answer({ op: "panel_prompt", remote: "agent", text: "talk" }));
  for (let i = 0; i < KEPT_UPDATES + 10; i++) {
    relay.update(shore, 1, { kind: "text", text: `piece ${i}` });
  }
  const first = ok(await relay.answer({ op: "panel", remote: "agent", after: 0 }));
  assertEquals(first.updates.length, PANEL_PAGE, "one answer carries one page");
  // The request and the first pieces were dropped to keep the bound, and counted.
  assertEquals(first.dropped, KEPT_UPDATES + 11 - KEPT_UPDATES);
  assertEquals(first.updates[0].n, first.dropped + 1);

  // Long pieces: the characters kept stay under the bound.
  for (let i = 0; i < 400; i++) relay.update(shore, 1, { kind: "text", text: "y".repeat(2_000) });
  let kept = 0;
  let after = 0;
  for (let page = 0; page < 100; page++) {
    const answer = ok(await relay.answer({ op: "panel", remote: "agent", after }));
    if (answer.updates.length === 0) break;
    kept += answer.updates.reduce((sum, u) => sum + JSON.stringify(u.update).length, 0);
    after = answer.next;
  }
  assert(kept <= KEPT_CHARS, `${kept} characters kept, over ${KEPT_CHARS}`);
  assert(kept > KEPT_CHARS - 3_000, "the bound keeps as much as it may");

  // A panel that outlived a service (its cursor past the last update) starts again.
  const stale = ok(await relay.answer({ op: "panel", remote: "agent", after: 1_000_000 }));
  assert(stale.updates.length > 0 && stale.next < 1_000_000);
});

Deno.test("a shore that connects again replaces the old one, whose turn and word are over", async () => {
  const relay = new PromptRelay();
  const old = shoreOf("agent");
  relay.ready(old);
  ok(await relay.answer({ op: "panel_prompt", remote: "agent", text: "go" }));
  const fresh = shoreOf("agent");
  relay.ready(fresh);
  relay.update(old, 1, { kind: "text", text: "from the old shore" });
  relay.gone(old);
  const seen = ok(await relay.answer({ op: "panel", remote: "agent" }));
  assertEquals(seen.updates.map((u) => u.update), [
    { kind: "you", text: "go" },
    {
      kind: "end",
      reason: "disconnected",
      message: "the remote shore connected again; the turn it ran is over",
    },
  ]);
  assertEquals(seen.remotes.map((r) => [r.name, r.connected, r.working]), [["agent", true, false]]);
  ok(await relay.answer({ op: "panel_prompt", remote: "agent", text: "again" }));
  assertEquals(fresh.sent, [{ type: "prompt", turn: 2, text: "again" }]);
  assertEquals(old.sent, [{ type: "prompt", turn: 1, text: "go" }]);
});
