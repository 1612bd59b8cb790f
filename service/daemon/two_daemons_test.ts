// Two services in one process share nothing: each daemon builds its own workspaces, holds,
// scheduler and work ids, so nothing one does is visible to the other.

import { assert, assertEquals } from "../../tests/support/assert.ts";
import { connector, startInstance } from "../../tests/support/daemon.ts";
import { waitFor } from "../../tests/support/wait.ts";
import { fetchStatus } from "../control/mod.ts";
import { controlKey } from "../endpoint/mod.ts";
import { DEFAULT_SCHEDULER_OPTIONS } from "../scheduler/mod.ts";

/** Arguments for update_plan, a tool that needs no browser. */
const PLAN = { domains: ["example.com"], approach: ["look around"] };

Deno.test("a workspace minted through one daemon's bridge is unknown to another's", async () => {
  const one = await startInstance("one");
  const other = await startInstance("oth");
  try {
    const first = await connector(one);
    await first.send({ type: "open_workspace", seq: 100, label: "test" });
    const opened = await first.next();
    assert(opened.type === "workspace_opened", JSON.stringify(opened));

    const second = await connector(other);
    await second.start("update_plan", PLAN, opened.workspace);
    const refused = await second.next();
    assert(refused.type === "rejected" && refused.kind === "no_workspace", JSON.stringify(refused));

    await first.start("update_plan", PLAN, opened.workspace);
    assertEquals((await first.next()).type, "completed");
    // Plans are shown only to a proven read (decision 0335).
    const plans = async (paths: typeof one.paths) =>
      (await fetchStatus(paths.controlSocket, await controlKey(paths.keys))).plans;
    assertEquals((await plans(one.paths))?.length, 1);
    assertEquals((await plans(other.paths))?.length ?? 0, 0);

    // Each daemon counts its own works: the first work of each has the same id in its audit.
    await second.start("update_plan", PLAN);
    assertEquals((await second.next()).type, "completed");
    assertEquals(await firstAuditedWork(one.paths.auditFile), "w1");
    assertEquals(await firstAuditedWork(other.paths.auditFile), "w1");
  } finally {
    await one.stop();
    await other.stop();
  }
});

Deno.test("one daemon's full scheduler holds back none of another daemon's works", async () => {
  const one = await startInstance("one");
  const other = await startInstance("oth");
  try {
    // A browser that takes commands and never answers them: each work it gets keeps running.
    const browser = await one.connect("browser");
    await browser.send({
      type: "hello",
      browser_id: "browser-of-one",
      extension_version: "0",
      user_agent: "test",
    });
    await waitFor(
      async () => (await fetchStatus(one.paths.controlSocket)).browsers.length === 1,
      "the browser to attach",
    );
    // Every running slot of the first daemon's scheduler, each taken by a work in its own
    // workspace (so on its own lane) that waits in the browser.
    const { maxRunning } = DEFAULT_SCHEDULER_OPTIONS;
    for (let n = 0; n < maxRunning; n++) {
      const session = await connector(one);
      await session.start("tabs_create_mcp");
    }
    for (let n = 0; n < maxRunning; n++) {
      const command = await browser.next() as { op?: string };
      assertEquals(command.op, "tab.create");
    }

    // Were the scheduler shared, this would wait behind those works until its queue deadline
    // and come back not_dispatched.
    const session = await connector(other);
    await session.start("update_plan", PLAN);
    const completed = await session.next();
    assert(
      completed.type === "completed" && completed.outcome.kind === "success",
      JSON.stringify(completed),
    );
    browser.close();
  } finally {
    await one.stop();
    await other.stop();
  }
});

/** The work id of the first record in an audit file. */
async function firstAuditedWork(file: string): Promise<string> {
  const [line] = (await Deno.readTextFile(file)).split("\n");
  return JSON.parse(line).work;
}
