/**
 * What stays inside a workspace, end to end through real MCP clients, all three processes and
 * headless Chromium: a screenshot's or a recording's id of one workspace is refused in another,
 * and no raw workspace id (a bearer capability) reaches the service's log, its audit or `status`.
 */

import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { type CallResult, startSession } from "./support/session.ts";

/** A workspace id as the registry mints them: `ws_` and 24 random bytes in base64url. */
const RAW_WORKSPACE_ID = /ws_[A-Za-z0-9_-]{32}/;

Deno.test("ids stay in their workspace, and raw workspace ids stay out of log, audit and status", async () => {
  const s = await startSession();
  try {
    const tabA = await s.firstTab();
    await s.ok("navigate", { url: s.fixtures.url("/upload.html"), tabId: tabA });
    const shotA = await s.ok("computer", { action: "screenshot", tabId: tabA });
    const imageA = shotA.structuredContent?.imageId as string;
    await s.ok("gif_creator", { action: "start_recording", tabId: tabA });

    // Another client: a workspace of its own, with a screenshot of its own.
    const other = await s.connectClient("other-agent");
    const call = async (name: string, args: Record<string, unknown>) =>
      await other.callTool({ name, arguments: args }) as CallResult;
    const context = await call("tabs_context_mcp", { createIfEmpty: true });
    const tabB = (context.structuredContent as { tabs: { tabId: number }[] }).tabs[0].tabId;
    await call("navigate", { url: s.fixtures.url("/upload.html"), tabId: tabB });
    const shotB = await call("computer", { action: "screenshot", tabId: tabB });
    assert(!shotB.isError, JSON.stringify(shotB.content));
    const avatar = await refOfClient(call, tabB);

    // The first workspace's screenshot is not the second's to upload.
    const upload = await call("upload_image", { tabId: tabB, imageId: imageA, ref: avatar });
    assert(upload.isError, `another workspace's screenshot was uploaded: ${s.text(upload)}`);
    assertMatch(s.text(upload), new RegExp(`No screenshot "${imageA}" is kept`));
    // Nor is its recording: the tab is not the second workspace's.
    const recording = await call("gif_creator", { action: "export", tabId: tabA });
    assert(recording.isError, `another workspace's recording was exported: ${s.text(recording)}`);
    await s.ok("gif_creator", { action: "stop_recording", tabId: tabA });
    await other.close();

    const paths = resolveInstancePaths(s.testEnv.instance, (key) => s.testEnv.env[key]);
    const status = JSON.stringify(await fetchStatus(paths.controlSocket));
    const audit = await Deno.readTextFile(paths.auditFile);
    const log = await Deno.readTextFile(paths.logFile);
    assert(audit.includes('"tool":"upload_image"'), "the audit recorded the calls");
    for (const [where, text] of [["status", status], ["audit", audit], ["log", log]]) {
      assertEquals(text.match(RAW_WORKSPACE_ID)?.[0] ?? null, null, `a workspace id in ${where}`);
    }
  } finally {
    await s.close();
  }
});

/** The ref of the avatar input in `tabId`, read through another client. */
async function refOfClient(
  call: (name: string, args: Record<string, unknown>) => Promise<CallResult>,
  tabId: number,
): Promise<string> {
  const page = await call("read_page", { tabId, filter: "all" });
  const outline = page.content.find((block) => block.type === "text")?.text ?? "";
  const ref = /Avatar.*\[(ref_\d+)\]|\[(ref_\d+)\].*Avatar/.exec(outline);
  assert(ref, `the avatar input in:\n${outline.slice(0, 3000)}`);
  return ref[1] ?? ref[2];
}
