import type { ClientContext } from "@agentclientprotocol/sdk/unstable";
import { CHUNK_MAX_CHARS, TURN_MAX_UPDATES, type TurnUpdate } from "../shared/panel.ts";
import { assertEquals } from "../tests/support/assert.ts";
import { acpPeer, type PromptLink, ShorePrompts } from "./remote_prompts.ts";
import type { PromptMessage } from "./service_link.ts";

/**
 * The shore's prompts against a recording link and an agent host's context whose `session/prompt`
 * answers when the test says: the bounds of what one turn relays.
 */
function rig() {
  const relayed: { turn: number; update: TurnUpdate }[] = [];
  let take: (message: PromptMessage) => void = () => {};
  const link: PromptLink = {
    takePrompts: (listener) => take = listener,
    promptUpdate: (message) => relayed.push(message) > 0,
  };
  const answered = Promise.withResolvers<{ stopReason: string }>();
  const sent: { method: string; params: unknown }[] = [];
  const agent = {
    request: (method: string, params: unknown) => {
      sent.push({ method, params });
      return answered.promise;
    },
    notify: (method: string, params: unknown) => {
      sent.push({ method, params });
      return Promise.resolve();
    },
  } as unknown as ClientContext;
  const prompts = new ShorePrompts(link);
  prompts.start(acpPeer(agent), "s-1");
  return { relayed, take: (message: PromptMessage) => take(message), answered, sent, prompts };
}

const chunk = (text: string, sessionId = "s-1") => ({
  sessionId,
  update: {
    sessionUpdate: "agent_message_chunk" as const,
    content: { type: "text" as const, text },
  },
});

Deno.test("a turn's text is split into bounded pieces, and past its bound counted", async () => {
  const { relayed, take, answered, sent, prompts } = rig();
  prompts.update(chunk("before any turn"));
  assertEquals(relayed, []);
  take({ type: "prompt", turn: 3, text: "go" });
  assertEquals(sent[0].method, "session/prompt");
  assertEquals(sent[0].params, { sessionId: "s-1", prompt: [{ type: "text", text: "go" }] });
  prompts.update(chunk("x".repeat(CHUNK_MAX_CHARS * 2 + 5)));
  prompts.update(chunk("another session's", "s-2"));
  assertEquals(
    relayed.map((r) => r.update.kind === "text" ? r.update.text.length : -1),
    [CHUNK_MAX_CHARS, CHUNK_MAX_CHARS, 5],
  );
  // A second prompt while the turn runs is refused, never queued.
  take({ type: "prompt", turn: 4, text: "again" });
  assertEquals(relayed.at(-1), {
    turn: 4,
    update: {
      kind: "end",
      reason: "refused",
      message: "the agent is still working on the previous request",
    },
  });
  for (let i = 0; i < TURN_MAX_UPDATES + 7; i++) prompts.update(chunk("y"));
  take({ type: "prompt_stop", turn: 3 });
  assertEquals(sent.at(-1), { method: "session/cancel", params: { sessionId: "s-1" } });
  answered.resolve({ stopReason: "cancelled" });
  await answered.promise;
  await Promise.resolve();
  const turn3 = relayed.filter((r) => r.turn === 3);
  assertEquals(turn3.length, TURN_MAX_UPDATES + 2, "the bound, then skipped and end");
  assertEquals(turn3.at(-2)?.update, { kind: "skipped", count: 3 + 7 });
  assertEquals(turn3.at(-1)?.update, { kind: "end", reason: "cancelled", message: null });
});

Deno.test("a tool call served in a turn is relayed with Ghostlight's own outcome", () => {
  const { relayed, take, prompts } = rig();
  assertEquals(prompts.callStarted("tools/call", { name: "navigate" }), null, "no turn yet");
  take({ type: "prompt", turn: 1, text: "go" });
  const seen = prompts.callStarted("tools/call", {
    name: "computer",
    arguments: { action: "left_click" },
  });
  prompts.callEnded(seen, {
    result: { isError: true, content: [{ type: "text", text: "Refused: sacred site\nmore" }] },
  });
  assertEquals(relayed.map((r) => r.update), [
    {
      kind: "tool",
      call: 1,
      tool: "computer",
      action: "left_click",
      status: "running",
      outcome: null,
    },
    {
      kind: "tool",
      call: 1,
      tool: "computer",
      action: "left_click",
      status: "failed",
      outcome: "Refused: sacred site",
    },
  ]);
  assertEquals(prompts.callStarted("tools/list", {}), null, "only tool calls are shown");
});
