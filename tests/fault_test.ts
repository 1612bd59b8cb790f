/**
 * Truthful failure, end to end through the real connector, service and headless Chromium: the
 * caller deadline, progress, cancellation of a queued call, the queue deadline, the service
 * killed during calls and recovery afterwards, and the connector's own exit. Slow calls are real:
 * `navigate` to pages this test's own server holds back.
 */

import { fetchStatus } from "../service/control/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { launchBrowser } from "./support/browser.ts";
import { executable, makeTestEnv } from "./support/env.ts";
import { isRunning } from "./support/processes.ts";
import { pollUntil } from "./support/wait.ts";
import {
  envelope,
  legacyWithTab,
  serveSlowPages,
  startConnector,
  startService,
  toolCall,
  type Transcript,
  waitFor,
} from "./mcp_support.ts";

/**
 * Sends `request(n)` for n = 1, 2, ... until the workspace takes calls again and returns the
 * answer. A browser step still running holds it: a call behind that runs into the queue
 * deadline untouched, or into the connection's own deadline if that is shorter. Every line read
 * must answer the request just sent: nothing else is said meanwhile.
 */
async function onceFree(
  mcp: Transcript,
  request: (n: number) => string,
): Promise<Record<string, unknown>> {
  let n = 0;
  const { asked, answer } = await pollUntil(
    async () => {
      const line = request(++n);
      await mcp.send(line);
      return { asked: JSON.parse(line).id, answer: await mcp.nextJson() };
    },
    ({ asked, answer }) =>
      answer.id !== asked ||
      !/Not done: The call waited|did not finish this call within/.test(JSON.stringify(answer)),
    "the workspace to take calls again",
  );
  assertEquals(answer.id, asked, `the next line answers request ${asked}`);
  return answer;
}

function toolError(id: number | string, text: string) {
  return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true } };
}

const BROKE = "Outcome unknown: The connection to the Ghostlight service broke during this " +
  "call.\nIt may or may not have happened (a call that was still waiting did not run): call " +
  "tabs_context_mcp and look at the page before retrying.";

Deno.test("failures are told truthfully and recovered from", async (t) => {
  const testEnv = await makeTestEnv("flt");
  testEnv.env.GHOSTLIGHT_QUEUE_DEADLINE_MS = "1500";
  testEnv.env.GHOSTLIGHT_SETTLEMENT_MS = "3500";
  testEnv.env.GHOSTLIGHT_WORKSPACE_GRACE_MS = "2000";
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const slow = serveSlowPages();
  let service = startService(testEnv);
  await waitFor(async () => (await fetchStatus(paths.controlSocket)).service !== null, "service");
  const browser = await launchBrowser(testEnv);
  const opened: Transcript[] = [];
  const connector = (env: Record<string, string> = {}) => {
    const mcp = startConnector(testEnv, env);
    opened.push(mcp);
    return mcp;
  };
  const seenAfter = async (tag: string) =>
    await waitFor(() => Promise.resolve(slow.seen.includes(tag)), `the browser to ask for ${tag}`);
  try {
    await t.step("F01 deadline: one outcome_unknown answer, progress before it only", async () => {
      const mcp = connector({
        // 3 s: the setup's own tab creation must fit in it on a loaded machine.
        GHOSTLIGHT_CALL_DEADLINE_MS: "3000",
        GHOSTLIGHT_PROGRESS_INTERVAL_MS: "400",
      });
      const tabId = await legacyWithTab("fault", mcp);
      const startedAt = Date.now();
      await mcp.send(toolCall(2, "navigate", { url: slow.url("late", 7000), tabId }, {
        progressToken: "p-late",
      }));
      const progress: number[] = [];
      let answer = await mcp.nextJson();
      while (answer.method === "notifications/progress") {
        const params = answer.params as {
          progressToken: string;
          progress: number;
          message: string;
        };
        assertEquals(params.progressToken, "p-late");
        assertMatch(params.message, /^navigate is still running after \d+\.\d s$/);
        progress.push(params.progress);
        answer = await mcp.nextJson();
      }
      const waited = Date.now() - startedAt;
      // Only a lower bound: a loaded machine may answer late, never early.
      assert(waited >= 2900, `answered after ${waited} ms`);
      // Ticks every 400 ms before a 3 s deadline: a few, counting up from 1, however loaded
      // the machine is.
      assert(progress.length >= 2, `progress ${progress}`);
      assertEquals(progress, progress.map((_, index) => index + 1));
      assertEquals(
        JSON.stringify(answer),
        JSON.stringify(toolError(
          2,
          "Outcome unknown: The browser did not finish this call within 3 s; it may still be " +
            "happening.\nInspect the page (tabs_context_mcp, get_page_text or a screenshot) " +
            "before retrying; do not simply repeat it.",
        )),
      );
      // The work settles privately: nothing more is said about request 2. Until it has, it
      // holds the workspace; the calls that find it held are answered next, one by one, for
      // seconds in which request 2's progress would have ticked had it outlived the answer.
      // (They are page reads: those this connection's deadline gave up on do no harm later.)
      const text = await onceFree(mcp, (n) => toolCall(2 + n, "get_page_text", { tabId }));
      assertMatch(JSON.stringify(text.result), /page late/);
    });

    const mcp = connector();
    const tabId = await legacyWithTab("fault", mcp);

    await t.step("F02 a cancelled queued call never reaches the browser", async () => {
      await mcp.send(toolCall(10, "navigate", { url: slow.held("first"), tabId }));
      await seenAfter("first");
      await mcp.send(toolCall(11, "navigate", { url: slow.url("cancelled", 0), tabId }));
      // Queued behind call 10 on the service: both count as this connector's works.
      await waitFor(
        async () =>
          (await fetchStatus(paths.controlSocket)).connectors.some((c) => c.activeWorks === 2),
        "the second call to be queued",
      );
      await mcp.send(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11,' +
          '"reason":"changed my mind"}}',
      );
      await waitFor(
        async () =>
          (await fetchStatus(paths.controlSocket)).connectors.some((c) => c.activeWorks === 1),
        "the cancelled call to retire",
      );
      // The first page answers only now: however slow the machine, call 11 retired behind it.
      slow.release("first");
      const first = await mcp.nextJson();
      assertEquals(first.id, 10);
      assertMatch(JSON.stringify(first.result), /slow first/);
      // The workspace's calls run in order: had call 11 not been retired, it would have reached
      // the browser, and been answered, before call 12.
      await mcp.probe(toolCall(12, "get_page_text", { tabId }));
      assert(!slow.seen.includes("cancelled"), "the cancelled call never reached the browser");
    });

    await t.step("F07 an id still in flight cannot be reused: -32600", async () => {
      await mcp.send(toolCall(40, "navigate", { url: slow.url("inflight", 1500), tabId }));
      await seenAfter("inflight");
      await mcp.send(toolCall(40, "get_page_text", { tabId }));
      await mcp.expect({
        jsonrpc: "2.0",
        id: 40,
        error: { code: -32600, message: "Request id 40 is already in use" },
      });
      const first = await mcp.nextJson();
      assertEquals(first.id, 40);
      assertMatch(JSON.stringify(first.result), /slow inflight/);
    });

    await t.step("F08 2026-07-28: progress on its own token, cancellation silences", async () => {
      const modern = connector({ GHOSTLIGHT_PROGRESS_INTERVAL_MS: "300" });
      const request = (id: string, name: string, args: Record<string, unknown>, token?: string) =>
        toolCall(id, name, args, envelope(token === undefined ? {} : { progressToken: token }));
      await modern.send(request("c1", "tabs_context_mcp", { createIfEmpty: true }));
      const made = (await modern.nextJson(30_000)).result as {
        structuredContent: { workspaceId: string; tabs: { tabId: number }[] };
      };
      const where = {
        workspaceId: made.structuredContent.workspaceId,
        tabId: made.structuredContent.tabs[0].tabId,
      };
      await modern.send(
        request("c2", "navigate", { url: slow.url("modern-cancel", 2000), ...where }, "tok"),
      );
      await seenAfter("modern-cancel");
      const progress = await modern.nextJson();
      assertEquals(progress.method, "notifications/progress");
      assertEquals((progress.params as { progressToken: string }).progressToken, "tok");
      await modern.send(
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c2"}}',
      );
      // A tick may have been written before the cancellation was read; the connector handles
      // its input in order, so once this discovery is answered, c2 is over for it.
      await modern.send(JSON.stringify({
        jsonrpc: "2.0",
        id: "mark",
        method: "server/discover",
        params: { _meta: envelope() },
      }));
      let mark = await modern.nextJson();
      while (mark.method === "notifications/progress") {
        assertEquals((mark.params as { progressToken: string }).progressToken, "tok");
        mark = await modern.nextJson();
      }
      assertEquals(mark.id, "mark");
      // After cancellation nothing more is sent for c2: no progress, no answer. Its browser step
      // goes on holding the workspace until the page arrives; whatever c2 was owed would come
      // before the answers to the calls behind it.
      await onceFree(modern, (n) => request(`t${n}`, "get_page_text", where));
      // c3 ticks on the interval c2's progress did: between two of its ticks c2's would have
      // fired, were it still running.
      await modern.send(
        request("c3", "navigate", { url: slow.url("after-cancel", 1500), ...where }, "tok3"),
      );
      let ticks = 0;
      let answer = await modern.nextJson();
      while (answer.method === "notifications/progress") {
        assertEquals((answer.params as { progressToken: string }).progressToken, "tok3");
        ticks++;
        answer = await modern.nextJson();
      }
      assertEquals(answer.id, "c3");
      assertEquals((answer.result as { resultType: string }).resultType, "complete");
      assert(ticks >= 2, `c3 ticked ${ticks} times`);
    });

    await t.step("F03 queue deadline: a call that waits too long is not dispatched", async () => {
      await mcp.send(toolCall(20, "navigate", { url: slow.url("hog", 3000), tabId }));
      await seenAfter("hog");
      await mcp.send(toolCall(21, "navigate", { url: slow.url("starved", 0), tabId }));
      const starved = await mcp.nextJson();
      assertEquals(starved.id, 21);
      assertMatch(
        (starved.result as { content: { text: string }[] }).content[0].text,
        /^Not done: The call waited \d+(\.\d)? s behind this workspace's other calls and was not started\.\nNothing was done in the browser; it is safe to retry\.$/,
      );
      const hog = await mcp.nextJson();
      assertEquals(hog.id, 20);
      assert(!slow.seen.includes("starved"), "the starved call never reached the browser");
    });

    await t.step(
      "F04 the service killed during calls: outcome unknown, then recovery",
      async () => {
        const modern = connector();
        await modern.send(toolCall("m1", "tabs_context_mcp", { createIfEmpty: true }, envelope()));
        const before = (await modern.nextJson(30_000)).result as {
          structuredContent: { workspaceId: string };
        };
        const oldWorkspace = before.structuredContent.workspaceId;
        const listen = JSON.stringify({
          jsonrpc: "2.0",
          id: "L",
          method: "subscriptions/listen",
          params: { notifications: { toolsListChanged: true }, _meta: envelope() },
        });
        await modern.send(listen);
        assertEquals((await modern.nextJson()).method, "notifications/subscriptions/acknowledged");

        await mcp.send('{"jsonrpc":"2.0","id":29,"method":"tools/list"}');
        const toolsBefore = JSON.stringify((await mcp.nextJson()).result);
        await mcp.send(toolCall(30, "navigate", { url: slow.url("killed", 5000), tabId }));
        await seenAfter("killed");
        await mcp.send(toolCall(31, "get_page_text", { tabId }));
        await waitFor(
          async () =>
            (await fetchStatus(paths.controlSocket)).connectors.some((c) => c.activeWorks === 2),
          "the second call to reach the service",
        );
        service.kill("SIGKILL");
        await service.status;
        const ends = [await mcp.nextJson(), await mcp.nextJson()];
        ends.sort((a, b) => Number(a.id) - Number(b.id));
        assertEquals(JSON.stringify(ends[0]), JSON.stringify(toolError(30, BROKE)));
        assertEquals(JSON.stringify(ends[1]), JSON.stringify(toolError(31, BROKE)));

        service = startService(testEnv);
        await waitFor(
          async () => (await fetchStatus(paths.controlSocket)).browsers.length === 1,
          "the browser to reattach",
        );
        // Same connector, same revision: the next call works (in a fresh implicit workspace,
        // since the old service's workspaces died with it). list_changed comes first only if the
        // restarted service's tools differ (they can, when its code changed meanwhile).
        await mcp.send(toolCall(32, "tabs_context_mcp", { createIfEmpty: true }));
        let recovered = await mcp.nextJson(30_000);
        const listChanged = recovered.method === "notifications/tools/list_changed";
        if (listChanged) recovered = await mcp.nextJson();
        assertEquals(recovered.id, 32, JSON.stringify(recovered));
        const result = recovered.result as { isError?: boolean; structuredContent: object };
        assert(!result.isError, JSON.stringify(recovered));
        await mcp.send('{"jsonrpc":"2.0","id":33,"method":"tools/list"}');
        const toolsAfter = JSON.stringify((await mcp.nextJson()).result);
        assertEquals(listChanged, toolsAfter !== toolsBefore, "list_changed exactly when changed");

        // A 2026-07-28 caller holding the dead workspace is told to make a new one.
        const modernCall = (id: string, args: Record<string, unknown>) =>
          toolCall(id, "tabs_context_mcp", args, envelope());
        await modern.send(modernCall("m2", { workspaceId: oldWorkspace }));
        // The reconnection re-reads the catalog; the stream hears of it only if tools changed,
        // and then with its own subscriptionId.
        let stale = await modern.nextJson(30_000);
        const streamed = stale.method === "notifications/tools/list_changed";
        if (streamed) {
          assertEquals(stale.params, { _meta: { "io.modelcontextprotocol/subscriptionId": "L" } });
          stale = await modern.nextJson();
        }
        assertEquals(streamed, listChanged, "the stream tells what the 2025 connection told");
        assertMatch(JSON.stringify(stale.result), /That workspaceId is unknown or was released/);
        await modern.send(modernCall("m3", { createIfEmpty: true }));
        const fresh = (await modern.nextJson()).result as {
          isError?: boolean;
          structuredContent: { workspaceId: string };
        };
        assert(!fresh.isError, JSON.stringify(fresh));
        assert(fresh.structuredContent.workspaceId !== oldWorkspace, "a new workspace");
      },
    );

    await t.step(
      "F09 settlement window: an endless call is abandoned as outcome_unknown",
      async () => {
        const other = connector();
        const otherTab = await legacyWithTab("fault", other);
        const startedAt = Date.now();
        await other.send(
          toolCall(2, "navigate", { url: slow.url("endless", 7000), tabId: otherTab }),
        );
        await other.expect(toolError(
          2,
          "Outcome unknown: The call did not settle within 3.5 s and was abandoned.\nIt may have " +
            "partly happened: inspect the page before retrying.",
        ));
        const waited = Date.now() - startedAt;
        assert(waited >= 3400, `abandoned after ${waited} ms`);
        // The lane stays held while the abandoned step is still in the browser, so the next
        // call on this workspace waits, and here runs into the queue deadline untouched.
        await other.send(toolCall(3, "get_page_text", { tabId: otherTab }));
        const held = await other.nextJson();
        assertMatch(JSON.stringify(held), /Not done: The call waited \d+(\.\d)? s behind/);
        // Once the browser step really ended, the workspace works again.
        const text = await onceFree(
          other,
          (n) => toolCall(3 + n, "get_page_text", { tabId: otherTab }),
        );
        assertMatch(JSON.stringify(text.result), /page endless/);
      },
    );

    await t.step(
      "F10 a lost connection's workspace is kept for a grace period, then released",
      async () => {
        const workspaces = async () => (await fetchStatus(paths.controlSocket)).workspaces;
        const connectors = async () => (await fetchStatus(paths.controlSocket)).connectors.length;
        const lost = connector();
        await legacyWithTab("fault", lost);
        const withIt = await workspaces();
        const connected = await connectors();
        lost.child.kill("SIGKILL");
        await lost.close();
        // Once the service has seen the connection go, the workspace is still there.
        await waitFor(async () => (await connectors()) === connected - 1, "the loss to be seen");
        assertEquals(await workspaces(), withIt, "still kept during the grace period");
        await waitFor(async () => (await workspaces()) === withIt - 1, "the release", 10_000);

        const clean = connector();
        await legacyWithTab("fault", clean);
        const before = await workspaces();
        assertEquals((await clean.close()).code, 0);
        await waitFor(async () => (await workspaces()) === before - 1, "the release at EOF", 3_000);

        // 2026-07-28 handles outlive their connection by the grace period only.
        const modern = connector();
        await modern.send(toolCall(1, "tabs_context_mcp", {}, envelope()));
        await modern.nextJson(30_000);
        const minted = await workspaces();
        const modernConnected = await connectors();
        assertEquals((await modern.close()).code, 0);
        await waitFor(
          async () => (await connectors()) === modernConnected - 1,
          "the connection's end to be seen",
        );
        assertEquals(await workspaces(), minted, "kept during the grace period");
        await waitFor(
          async () => (await workspaces()) === minted - 1,
          "the handle's release",
          10_000,
        );
      },
    );

    await t.step("F05 the connector exits on EOF and leaves the service running", async () => {
      const pid = (await fetchStatus(paths.controlSocket)).service.pid;
      const { code } = await mcp.close();
      assertEquals(code, 0);
      assertEquals((await fetchStatus(paths.controlSocket)).service.pid, pid);
    });

    await t.step(
      "F06 the connector exits when its parent dies, though stdin stays open",
      async () => {
        const fifo = `${testEnv.home}/connector-stdin`;
        const out = `${testEnv.home}/connector-stdout`;
        const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
        assert(made.success, "mkfifo");
        const { command, args } = executable(testEnv, "mcp-connector", [
          "--instance",
          testEnv.instance,
        ]);
        const quoted = [command, ...args].map((part) => `'${part}'`).join(" ");
        const parent = new Deno.Command("sh", {
          args: ["-c", `${quoted} < '${fifo}' > '${out}' 2>/dev/null & echo $!; exec sleep 60`],
          env: testEnv.env,
          clearEnv: true,
          stdout: "piped",
          stderr: "null",
        }).spawn();
        let parentExited = false;
        parent.status.then(() => parentExited = true);
        let holder: Deno.FsFile | null = null;
        let pid = 0;
        const kill = (target: number) => {
          try {
            if (target > 0) Deno.kill(target, "SIGKILL");
          } catch {
            // Already gone.
          }
        };
        const alive = () => isRunning(pid);
        try {
          holder = await Deno.open(fifo, { write: true });
          const reader = parent.stdout.pipeThrough(new TextDecoderStream()).getReader();
          pid = Number((await reader.read()).value!.trim());
          reader.releaseLock();
          await parent.stdout.cancel().catch(() => {});
          // The connector is serving once it has answered a probe.
          const probe = JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "server/discover",
            params: { _meta: envelope() },
          });
          await holder.write(new TextEncoder().encode(`${probe}\n`));
          await waitFor(
            async () => (await Deno.readTextFile(out)).includes('"supportedVersions"'),
            "the connector to answer",
          );
          const servicePid = (await fetchStatus(paths.controlSocket)).service.pid;
          parent.kill("SIGKILL");
          await parent.status;
          await waitFor(async () => !(await alive()), "the orphaned connector to exit", 10_000);
          assertEquals((await fetchStatus(paths.controlSocket)).service.pid, servicePid);
        } finally {
          // On failure too: no shell, sleep, orphaned connector or FIFO writer is left behind.
          if (!parentExited) kill(parent.pid);
          await parent.status;
          if (pid > 0 && await alive()) kill(pid);
          holder?.close();
        }
      },
    );
  } finally {
    for (const mcp of opened) await mcp.close().catch(() => {});
    await browser.stop();
    service.kill("SIGTERM");
    await service.status;
    await slow.close();
    await testEnv.dispose();
  }
});
