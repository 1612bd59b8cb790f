/**
 * A workspace released while its `tabs_create_mcp` runs (issue 12), end to end through the real
 * connector, service, browser connector and headless Chromium: the release waits for the call
 * and then gives back the tab the call created. The browser is the witness: the test holds the
 * call's `tab.create` inside the extension at a DevTools breakpoint in its service worker, so the
 * call is surely dispatched and unfinished when the release arrives, and reads the tabs and their
 * debugger attachments through the extension's own chrome.* APIs.
 */

import { assert, assertEquals } from "./support/assert.ts";
import {
  breakInExtension,
  connectCdp,
  evaluateInExtension,
  type WorkerBreakpoint,
} from "./support/cdp.ts";
import { startFaultRig } from "./support/fault_rig.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { legacyWithTab, toolCall } from "./mcp_support.ts";
import { pollUntil, within } from "./support/wait.ts";

/** The native ids of the browser's tabs. */
const TAB_IDS = "chrome.tabs.query({}).then((tabs) => tabs.map((tab) => tab.id))";

/** Each tab's id with whether a debugger (the extension's) is attached to it. */
const DEBUGGED = "chrome.debugger.getTargets().then((targets) => targets" +
  ".filter((target) => target.tabId !== undefined)" +
  ".map((target) => ({ tabId: target.tabId, attached: target.attached })))";

Deno.test("a clean exit during a running tabs_create_mcp releases the tab it created", async () => {
  // A connection lost without releasing would keep its workspace for two minutes: a workspace
  // gone at once is the connector's release, not the end of its connection.
  const rig = await startFaultRig("rel", {
    env: { GHOSTLIGHT_WORKSPACE_GRACE_MS: "120000" },
    launchArgs: ["--remote-debugging"],
  });
  const { slow, status } = rig;
  const cdp = await connectCdp(rig.browser.ready.devtools!);
  let held: WorkerBreakpoint | null = null;
  try {
    const mcp = rig.connector();
    const first = await legacyWithTab("release", mcp);
    const before = await evaluateInExtension<number[]>(cdp, TAB_IDS);
    const pages = await cdp.pages();

    // The next tab.create stops inside the extension, before the tab exists.
    held = await breakInExtension(cdp, "chrome.tabs.create({");
    await mcp.send(toolCall(2, "tabs_create_mcp", {}));
    await within(held.hit, 30_000, "the tab.create to reach the extension's worker");
    // A second call queued behind it in the workspace's lane: a navigation the fixture server
    // would see.
    await mcp.send(toolCall(3, "navigate", { url: slow.url("queued", 0), tabId: first }));
    await pollUntil(status, (s) => s.works?.queued === 1, "the navigation to queue");

    // A clean exit: stdin closes, the connector waits briefly for its calls, releases its
    // workspace and exits, with neither call answered.
    const exited = await mcp.close();
    assertEquals(exited, { code: 0, rest: [] });
    const waiting = await pollUntil(
      status,
      (s) => s.connectors.length === 0 && s.works?.queued === 0,
      "the connection to end and its queued call to retire",
    );
    assertEquals(waiting.workspaces, 0, "released at once, not after the grace period");
    assertEquals(waiting.person?.workspaces, []);
    assertEquals(waiting.works, { running: 1, queued: 0 }, "the release waits for the call");
    // The held worker runs no JavaScript, so the browser's own targets tell: no tab yet.
    assertEquals(await cdp.pages(), pages, "no tab yet");

    await held.resume();
    held = null;
    await pollUntil(status, (s) => s.works?.running === 0, "the tabs_create_mcp to end");
    const after = await evaluateInExtension<number[]>(cdp, TAB_IDS);
    const created = after.filter((id) => !before.includes(id));
    assertEquals(created.length, 1, `the call created one tab: ${before} -> ${after}`);
    // The call ended with the tab in the workspace; the release after it detaches the debugger
    // from every tab the workspace owned, the created one too. The pages stay open.
    const debugged = await pollUntil(
      () => evaluateInExtension<{ tabId: number; attached: boolean }[]>(cdp, DEBUGGED),
      (targets) => targets.every((target) => !target.attached),
      "every tab of the released workspace to be detached",
    );
    assert(
      debugged.some((target) => target.tabId === created[0]),
      `the created tab is still open: ${JSON.stringify(debugged)}`,
    );
    const audit = resolveInstancePaths(rig.testEnv.instance, (key) => rig.testEnv.env[key])
      .auditFile;
    const outcomes = await pollUntil(
      async () =>
        (await Deno.readTextFile(audit)).trimEnd().split("\n").map((line) => JSON.parse(line))
          .filter((record) => record.kind === "outcome"),
      (records) => records.length === 3,
      "the audit to record how both calls ended",
    );
    // The call ended well, with its tab in the workspace (not cut off by the operation timeout,
    // which would leave the tab unowned and undebugged); the queued one retired with its
    // connection, before its turn.
    assertEquals(
      Object.fromEntries(outcomes.map((record) => [record.tool, record.result])),
      { tabs_context_mcp: "success", tabs_create_mcp: "success", navigate: "cancelled" },
    );
    const end = await status();
    assertEquals(end.workspaces, 0, "no workspace holds it");
    assertEquals(end.person?.workspaces, []);
    assertEquals(end.works, { running: 0, queued: 0 });
    // Nothing is running or queued, so a dispatched navigation would have loaded its page.
    assertEquals(slow.seen.filter((tag) => tag === "queued"), [], "the queued call never ran");
  } finally {
    await held?.resume().catch(() => {});
    cdp.close();
    await rig.close();
  }
});
