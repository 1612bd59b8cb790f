import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { type Workspace, WorkspaceHolds, WorkspaceRegistry } from "../workspace/mod.ts";
import { NoSuchWorkspace, PersonControls } from "./person.ts";

function makeControls(attentionAfter = 3) {
  const workspaces = new WorkspaceRegistry();
  const released: string[] = [];
  const holds = new WorkspaceHolds(workspaces, {
    graceMs: 60_000,
    releaseTabs: (workspace) => released.push(workspace.label),
  });
  const shown: string[] = [];
  const focused: (number | undefined)[] = [];
  const person = new PersonControls({
    workspaces,
    holds,
    attentionAfter,
    effects: {
      show: (workspace: Workspace, state) => shown.push(`${workspace.number}:${state}`),
      focus: (_workspace, tabId) => {
        focused.push(tabId);
        return Promise.resolve(true);
      },
    },
  });
  return { workspaces, holds, person, shown, focused, released };
}

Deno.test("hold pauses one workspace or all; resume lifts it; the group shows it", () => {
  const { holds, person, shown } = makeControls();
  const agent = holds.connect();
  const first = holds.open(agent, "one");
  const second = holds.open(agent, "two");
  assertEquals(person.barrier(agent, first.id), null);
  person.hold(1);
  assertEquals(person.barrier(agent, first.id)?.kind, "held");
  assertEquals(person.barrier(agent, second.id), null);
  person.hold();
  assertEquals(person.barrier(agent, second.id)?.kind, "held");
  assertEquals(person.barrier(agent, undefined)?.kind, "held", "calls without a workspace too");
  person.resume();
  assertEquals(person.barrier(agent, first.id), null);
  assertEquals(shown, ["1:held", "1:held", "2:held", "1:running", "2:running"]);
  assertEquals(person.workspaces().map((w) => [w.number, w.client, w.state]), [
    [1, "one", "idle"],
    [2, "two", "idle"],
  ]);
  holds.close();
});

Deno.test("the attention circuit opens after N denials in a row and closes on resume", () => {
  const { holds, person, shown } = makeControls(3);
  const agent = holds.connect();
  const workspace = holds.open(agent, "one");
  assert(!person.denied(workspace));
  person.allowed(workspace);
  assert(!person.denied(workspace));
  assert(!person.denied(workspace));
  assert(person.denied(workspace), "the third denial in a row opens it");
  assertEquals(person.barrier(agent, workspace.id)?.kind, "attention");
  assertMatch(person.barrier(agent, workspace.id)!.rule, /after 3 denials in a row/);
  assertEquals(person.workspaces()[0].state, "attention");
  person.resume(1);
  assertEquals(person.barrier(agent, workspace.id), null);
  assertEquals(person.workspaces()[0].denials, 0);
  assertEquals(shown, ["1:attention", "1:running"]);
  holds.close();
});

Deno.test("stop ends the agent's workspaces and answers it 'stopped' until it reconnects", () => {
  const { holds, person, workspaces, released } = makeControls();
  const agent = holds.connect();
  const other = holds.connect();
  let aborted = 0;
  person.connected(agent, () => aborted++);
  person.connected(other, () => {});
  const mine = holds.open(agent, "agent");
  const also = holds.open(agent, "agent");
  const theirs = holds.open(other, "other");
  person.stop(mine.number);
  assertEquals(aborted, 1);
  assertEquals(released, ["agent", "agent"]);
  assert(!workspaces.get(mine.id) && !workspaces.get(also.id) && workspaces.get(theirs.id));
  assertEquals(person.barrier(agent, undefined)?.kind, "stopped");
  assertEquals(person.barrier(other, theirs.id), null);
  // Another connection naming a stopped workspace hears the same.
  assertEquals(person.barrier(other, mine.id)?.kind, "stopped");
  person.disconnected(agent);
  const again = holds.connect();
  assertEquals(person.barrier(again, undefined), null);
  person.stop();
  assertEquals(person.barrier(other, undefined)?.kind, "stopped");
  assertEquals(workspaces.size, 0);
  holds.close();
});

Deno.test("take over holds the workspace and brings its last tab forward", async () => {
  const { holds, person, focused } = makeControls();
  const agent = holds.connect();
  const workspace = holds.open(agent, "one");
  person.began(workspace, { tool: "navigate", action: null, host: "a.test" }, 42);
  person.ended(workspace, { tool: "navigate", action: null, host: "a.test" }, "success");
  assertMatch(await person.takeOver(1), /paused.*Its tab is in front/);
  assertEquals(focused, [42]);
  assertEquals(person.barrier(agent, workspace.id)?.kind, "held");
  assertEquals(person.workspaces()[0].last?.result, "success");
  let thrown: unknown;
  try {
    person.hold(9);
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof NoSuchWorkspace);
  holds.close();
});
