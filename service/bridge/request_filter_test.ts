import type { Outcome } from "../../shared/bridge.ts";
import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { WorkspaceRegistry } from "../workspace/mod.ts";
import { type Stopped, withStoppedNote } from "./request_filter.ts";

const workspace = new WorkspaceRegistry().open("agent");

function stopped(navigation: boolean): Stopped {
  return {
    count: 1,
    hosts: new Map([["refused.test", { origin: "https://refused.test", why: "refused" }]]),
    workspace,
    navigation,
  };
}

const FAILED: Outcome = {
  kind: "tool_failure",
  message: "The page did not load.",
  next_step: "Check the address.",
};

Deno.test("a stopped document tells the agent to go back, whatever the failure's words", () => {
  const outcome = withStoppedNote(FAILED, stopped(true));
  if (outcome.kind === "success") throw new Error("a failure stays a failure");
  assertMatch(outcome.next_step, /^Navigate the tab back/);
  assertMatch(outcome.message, /Ghostlight stopped 1 request/);
});

Deno.test("a failure beside a stopped subresource keeps its own way on", () => {
  const blockedWords: Outcome = { ...FAILED, message: "net::ERR_BLOCKED_BY_CLIENT somewhere" };
  const outcome = withStoppedNote(blockedWords, stopped(false));
  if (outcome.kind === "success") throw new Error("a failure stays a failure");
  assertEquals(outcome.next_step, FAILED.next_step);
});
