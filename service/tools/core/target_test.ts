import { assertEquals, assertMatch } from "../../../tests/support/assert.ts";
import { BrowserHub } from "../../browser/mod.ts";
import { WorkspaceRegistry } from "../../workspace/mod.ts";
import { ToolError } from "./errors.ts";
import { ownedTab } from "./target.ts";

function refusal(work: () => unknown): ToolError {
  try {
    work();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

Deno.test("a lost tab is named as lost to its own workspace and denied to any other", () => {
  const registry = new WorkspaceRegistry();
  const hub = new BrowserHub();
  const mine = registry.open("mine");
  const theirs = registry.open("theirs");
  const fresh = registry.open("fresh");
  mine.tabs.add(5);
  theirs.tabs.add(7);

  const gone = refusal(() => ownedTab(mine, hub, 5));
  assertEquals(gone.kind, "not_dispatched");
  assertMatch(gone.message, /browser holding your tabs disconnected/);
  assertMatch(gone.nextStep, /tabs_context_mcp/);

  mine.tabs.delete(5);
  assertMatch(refusal(() => ownedTab(mine, hub, 5)).message, /Tab 5 is gone/);

  // Another workspace's id and an id that never existed read the same.
  const foreign = refusal(() => ownedTab(theirs, hub, 5));
  const unknown = refusal(() => ownedTab(theirs, hub, 9));
  assertEquals([foreign.kind, foreign.message], ["denied", "Tab 5 is not one of your tabs."]);
  assertEquals(unknown.message, "Tab 9 is not one of your tabs.");
  assertMatch(refusal(() => ownedTab(fresh, hub, 5)).message, /you have none yet/);
});
