import type { ConnectorMessage } from "../../shared/bridge.ts";
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { BrowserHub } from "../browser/mod.ts";
import { Catalog } from "../catalog/mod.ts";
import { Scheduler } from "../scheduler/mod.ts";
import { Recordings, TOOLS } from "../tools/mod.ts";
import {
  MAX_WORKSPACES_PER_CONNECTION,
  WorkspaceHolds,
  WorkspaceRegistry,
} from "../workspace/mod.ts";
import { admitWorkspace, CONNECTION_FULL } from "./admission.ts";
import { type SessionDeps, WorkIds } from "./session.ts";
import { testGovernance } from "../../tests/support/governance.ts";

async function makeDeps(): Promise<SessionDeps> {
  const workspaces = new WorkspaceRegistry();
  const holds = new WorkspaceHolds(workspaces, { graceMs: 60_000, releaseTabs: () => {} });
  return {
    catalog: new Catalog(TOOLS),
    workspaces,
    holds,
    browsers: new BrowserHub(),
    scheduler: new Scheduler(),
    workIds: new WorkIds(),
    activity: { works: 0 },
    settlementMs: 180_000,
    governance: await testGovernance(workspaces, holds),
    recordings: new Recordings(() => false),
  };
}

/** A queue with room for every call. */
const roomy = () => null;

function start(tool: string, workspace?: string): Extract<ConnectorMessage, { type: "start" }> {
  return {
    type: "start",
    seq: 1,
    tool,
    arguments: {},
    ...(workspace === undefined ? {} : { workspace }),
    context: { client_name: "test", client_version: "1" },
  };
}

Deno.test("a context-creating tool without a workspace mints one its connection holds", async () => {
  const deps = await makeDeps();
  const session = { deps, holder: deps.holds.connect() };
  const admitted = admitWorkspace(session, start("tabs_context_mcp"), roomy);
  assert("workspace" in admitted && admitted.workspace !== undefined);
  assert(deps.holds.holds(session.holder, admitted.workspace.id));
  deps.holds.close();
});

Deno.test("a stateless tool without a workspace runs without one; others are refused", async () => {
  const deps = await makeDeps();
  const session = { deps, holder: deps.holds.connect() };
  assertEquals(admitWorkspace(session, start("update_plan"), roomy), { workspace: undefined });
  const refused = admitWorkspace(session, start("get_page_text"), roomy);
  assert("refusal" in refused && refused.refusal.kind === "no_workspace");
  assertEquals(deps.workspaces.size, 0);
});

Deno.test("an unknown workspace is refused; naming a known one holds it", async () => {
  const deps = await makeDeps();
  const owner = { deps, holder: deps.holds.connect() };
  const other = { deps, holder: deps.holds.connect() };
  const refused = admitWorkspace(other, start("get_page_text", "ws_unknown"), roomy);
  assert("refusal" in refused && refused.refusal.kind === "no_workspace");
  const id = deps.holds.open(owner.holder, "test").id;
  const admitted = admitWorkspace(other, start("get_page_text", id), roomy);
  assert("workspace" in admitted && admitted.workspace?.id === id);
  assert(deps.holds.holds(other.holder, id));
  deps.holds.close();
});

Deno.test("a connection at its cap may neither mint nor name another workspace", async () => {
  const deps = await makeDeps();
  const full = { deps, holder: deps.holds.connect() };
  for (let n = 0; n < MAX_WORKSPACES_PER_CONNECTION; n++) deps.holds.open(full.holder, "test");
  const minting = admitWorkspace(full, start("tabs_create_mcp"), roomy);
  assert("refusal" in minting && minting.refusal.message === CONNECTION_FULL);
  const elsewhere = deps.holds.open(deps.holds.connect(), "test").id;
  const naming = admitWorkspace(full, start("get_page_text", elsewhere), roomy);
  assert("refusal" in naming && naming.refusal.kind === "busy");
  assert(!deps.holds.holds(full.holder, elsewhere));
  assertEquals(deps.workspaces.size, MAX_WORKSPACES_PER_CONNECTION + 1);
  deps.holds.close();
});
