/**
 * A key per role (issues 25 and 26, decision 0250), against a real service with, where a
 * browser is involved, a real Chromium and real connectors: a process that holds the MCP
 * connector's key cannot attach as a browser, is sent no work, and cannot resume an agent the
 * person held; the control socket refuses an unproven change and shows an unproven reader no
 * agent, plan or site; and a process with only the MCP
 * connector's permissions that replaces `bridge.sock` cannot prove itself to the next connector,
 * whether it forges a proof or relays the real service's, and the service notices and binds its
 * socket again. An upgraded instance loses its old shared secret, and an older connector is told
 * why it is refused.
 */

import { BRIDGE_MAJOR, BRIDGE_MAX_FRAME } from "../shared/bridge.ts";
import { encodeFrame, FrameReader } from "../shared/framing.ts";
import { connectAndVerify, writeAll } from "../shared/handshake.ts";
import { freshNonce } from "../shared/proof.ts";
import { fetchStatus, requestControl } from "../service/control/mod.ts";
import { permissionFlags } from "../service/privilege/mod.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";
import { ROOT, type TestEnv } from "./support/env.ts";
import { ghostlight, startService } from "./support/processes.ts";
import { type E2ESession, startSession } from "./support/session.ts";
import { makeTestEnv } from "./support/env.ts";
import { waitFor } from "./support/wait.ts";

/** What the neighbour answers: one JSON object a line. */
type Answer = Record<string, unknown>;

/**
 * Starts tests/support/hostile_neighbour.ts exactly as the MCP connector is started (its set and
 * its instance's flags), reaching also the sockets in `reach` (not their keys).
 */
function neighbour(testEnv: TestEnv, reach: string[] = []) {
  const more = (flag: string, prefix: string, values: string[]) =>
    flag.startsWith(prefix) && values.length > 0 ? `${flag},${values.join(",")}` : flag;
  const flags = permissionFlags("mcp-connector", testEnv.plan).map((flag) =>
    more(
      more(more(flag, "--allow-read=", reach), "--allow-write=", reach),
      "--allow-net=",
      reach.map((socket) => `unix:${socket}`),
    )
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--no-prompt",
      "-P=mcp-connector",
      "--config",
      `${ROOT}/deno.json`,
      ...flags,
      `${ROOT}/tests/support/hostile_neighbour.ts`,
      JSON.stringify(testEnv.plan.paths),
    ],
    env: testEnv.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const next = async (): Promise<Answer> => {
    while (!pending.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the neighbour ended");
      pending += value;
    }
    const end = pending.indexOf("\n");
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    return JSON.parse(line);
  };
  return {
    next,
    send: (command: string) => writer.write(new TextEncoder().encode(`${command}\n`)),
    async ask(command: string): Promise<Answer> {
      await this.send(command);
      return await next();
    },
    async close() {
      await writer.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await child.status;
    },
  };
}

type Frame = { type?: string; message?: string } | null;

async function personOf(s: E2ESession) {
  const out = await ghostlight(s.testEnv, ["status", "--json"]);
  return JSON.parse(out.stdout).person as { paused: boolean };
}

Deno.test("a process with the MCP connector's permissions that replaces bridge.sock cannot prove itself to the next connector", async () => {
  const testEnv = await makeTestEnv("squat");
  const paths = testEnv.plan.paths;
  const service = startService(testEnv);
  // Started once the service has made the keys: it reads the MCP connector's at its start.
  await waitFor(() => fetchStatus(paths.controlSocket).then(() => true), "the service");
  const hostile = neighbour(testEnv);
  const next = (name: string) =>
    connectAndVerify({
      socket: paths.bridgeSocket,
      keys: paths.keys,
      role: "mcp",
      client: { name, version: "1" },
      maxFrame: BRIDGE_MAX_FRAME,
    });
  try {
    const expected = {
      // It cannot sign as the service: the connector refuses it before sending anything more.
      forge: /it could not prove it holds the service's key/,
      // It relays the real service's signature through a connection it opened before: the
      // service sees its socket replaced and does not admit the connection.
      relay: /the service refused: the service's socket was replaced while this connection opened/,
    };
    for (const mode of ["forge", "relay"] as const) {
      let met = false;
      // The service may bind its socket again before the connector arrives; then try again.
      for (let attempt = 0; attempt < 5 && !met; attempt++) {
        await hostile.send(`squat ${mode}`);
        const ready = await hostile.next();
        assertEquals(ready, { ready: true }, JSON.stringify(ready));
        const outcome = await next(`next-${mode}-${attempt}`).then(
          (opened) => {
            opened.conn.close();
            return null;
          },
          (error: Error) => error.message,
        );
        const { served } = await hostile.next() as { served: Frame[] | { missed: true } };
        // Missed: the connector came once the service had its path back (or just as it bound).
        if (!Array.isArray(served)) continue;
        met = true;
        assert(outcome !== null, `${mode}: the connector was admitted through the squatter`);
        assertMatch(outcome, expected[mode]);
        if (mode === "forge") {
          assertEquals(served.length, 2);
          assertEquals(served[1], null, "the connector sent nothing after the forged hello");
        } else {
          assertEquals(served.map((frame) => frame?.type), ["hello", "proof", "refused"]);
        }
      }
      assert(met, `${mode}: the squatter never met a connector`);
    }
    // The service noticed each replacement, said so, and serves at its path again.
    await waitFor(async () => {
      const replaced = (await fetchStatus(paths.controlSocket)).replacedSockets ?? [];
      return replaced.filter((entry) => entry.socket === "bridge").length >= 2;
    }, "the status to show the replaced socket");
    const human = await ghostlight(testEnv, ["status"]);
    assertMatch(human.stdout, /Warning: another process removed or replaced the bridge socket/);
    assertMatch(
      await Deno.readTextFile(paths.logFile),
      /the bridge socket was removed or replaced by another process; binding it again/,
    );
    await waitFor(
      () => next("after").then((opened) => (opened.conn.close(), true), () => false),
      "a connector to reach the service again",
    );
  } finally {
    await hostile.close();
    service.kill("SIGTERM");
    await service.status;
    await testEnv.dispose();
  }
});

Deno.test("the MCP connector's key and an unproven reader or caller in one session: no browser link, no work, no resume, nothing learnt", async (t) => {
  const s = await startSession({ instancePrefix: "keys" });
  try {
    await t.step(
      "a raw read of the control socket without the proof learns no agent, plan or site",
      async () => {
        const paths = s.testEnv.plan.paths;
        const tab = await s.firstTab();
        await s.ok("update_plan", {
          domains: ["plan-secret.example"],
          approach: ["approach-secret"],
        });
        const page = s.fixtures.url("/article.html");
        await s.ok("navigate", { url: page, tabId: tab });
        const host = new URL(page).hostname;
        const revealing = [host, "plan-secret", "approach-secret", "ghostlight-test"];
        // The person's own command proves itself and sees them all.
        const whole = (await ghostlight(s.testEnv, ["status", "--json"])).stdout;
        for (const word of revealing) assert(whole.includes(word), `status --json shows ${word}`);

        const status = await requestControl(paths.controlSocket, {
          method: "GET",
          path: "/status",
        });
        assertEquals(status.status, 200);
        for (const word of revealing) {
          assert(!status.body.includes(word), `${word}: ${status.body}`);
        }
        const shown = JSON.parse(status.body);
        assertEquals(shown.browsers.length, 1, "that the service runs, and its browser, are shown");
        assertMatch(shown.withheld, /control proof/);
        for (const path of ["/person", "/person?op=state"]) {
          const person = await requestControl(paths.controlSocket, { method: "GET", path });
          assertEquals(person.status, 401, path);
          for (const word of revealing) {
            assert(!person.body.includes(word), `${path}: ${word}`);
          }
          assertMatch(JSON.parse(person.body).message, /carries no proof/);
        }
      },
    );

    await t.step(
      "an MCP connector's key offered on the browser socket is refused and is sent no work",
      async () => {
        const paths = s.testEnv.plan.paths;
        const hostile = neighbour(s.testEnv, [paths.browserSocket]);
        try {
          const tab = await s.firstTab();
          assertEquals((await fetchStatus(paths.controlSocket)).browsers.length, 1);
          // While it tries, the agent opens tabs: a link admitted as a browser would be sent them.
          const tried = hostile.ask("browser");
          await s.ok("tabs_create_mcp", {});
          await s.ok("tabs_create_mcp", {});
          const { asBrowser, asMcp } = await tried as { asBrowser: Frame[]; asMcp: Frame[] };
          // Its hello was answered with the service's signature and a challenge, its proof with the
          // MCP key refused, and nothing else came: no command, no admission.
          assertEquals(asBrowser.map((frame) => frame?.type), ["hello", "refused"]);
          assertMatch(
            asBrowser[1]!.message!,
            /could not prove it holds this instance's browser key/,
          );
          assertEquals(asMcp.map((frame) => frame?.type), ["refused"]);
          assertMatch(asMcp[0]!.message!, /this socket serves browser connectors/);
          // The real browser is still the only one, and the agent's work still goes to it.
          const status = await fetchStatus(paths.controlSocket);
          assertEquals(status.browsers.length, 1);
          await s.ok("get_page_text", { tabId: tab });
          const log = await Deno.readTextFile(paths.logFile);
          assertMatch(log, /a peer on the browser socket could not prove it holds its role's key/);
        } finally {
          await hostile.close();
        }
      },
    );

    await t.step("an unproven POST /person is refused and a held agent stays held", async () => {
      const paths = s.testEnv.plan.paths;
      const tab = await s.firstTab();
      assertEquals((await ghostlight(s.testEnv, ["hold"])).code, 0);
      assertEquals((await personOf(s)).paused, true);
      for (const op of ["resume", "take_over", "stop"]) {
        const answer = await requestControl(paths.controlSocket, {
          method: "POST",
          path: "/person",
          body: JSON.stringify({ op }),
        });
        assertEquals(answer.status, 401, op);
        assertMatch(JSON.parse(answer.body).message, /carries no proof/);
      }
      assertEquals((await personOf(s)).paused, true);
      assertMatch(await s.fail("get_page_text", { tabId: tab }), /^Paused by the person/);
      // The person's own command proves itself, and is obeyed.
      assertEquals((await ghostlight(s.testEnv, ["resume"])).code, 0);
      await s.ok("get_page_text", { tabId: tab });
    });

    await t.step(
      "a process holding only the MCP connector's key can neither attach as a browser nor resume a held agent",
      async () => {
        const paths = s.testEnv.plan.paths;
        const hostile = neighbour(s.testEnv, [paths.browserSocket, paths.controlSocket]);
        try {
          const tab = await s.firstTab();
          assertEquals((await ghostlight(s.testEnv, ["hold"])).code, 0);
          const { answers } = await hostile.ask("resume") as {
            answers: { status: number; body: string }[];
          };
          assertEquals(answers.map((answer) => answer.status), [401, 401]);
          assertMatch(JSON.parse(answers[1].body).message, /not the service's/);
          // Nor through a browser's popup: it cannot become a browser to relay the person's controls.
          const { asBrowser } = await hostile.ask("browser") as { asBrowser: Frame[] };
          assertEquals(asBrowser.map((frame) => frame?.type), ["hello", "refused"]);
          assertEquals((await personOf(s)).paused, true);
          assertMatch(await s.fail("get_page_text", { tabId: tab }), /^Paused by the person/);
        } finally {
          await hostile.close();
        }
      },
    );
  } finally {
    await s.close();
  }
});

Deno.test("a connector from an install before keys per role is refused at hello and told why", async () => {
  const testEnv = await makeTestEnv("older");
  const paths = testEnv.plan.paths;
  // An instance upgraded in place: its old shared secret is there when the service starts.
  await Deno.mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  await Deno.writeFile(paths.legacySecretFile, new Uint8Array(32).fill(7), { mode: 0o600 });
  const service = startService(testEnv);
  try {
    await waitFor(() => fetchStatus(paths.controlSocket).then(() => true), "the service");
    await assertRejects(() => Deno.stat(paths.legacySecretFile), /No such file/);
    assertMatch(await Deno.readTextFile(paths.logFile), /removed the shared secret of an older/);
    // What a connector of bridge 5 sends first: its hello. It is answered with a refusal.
    const conn = await Deno.connect({ transport: "unix", path: paths.bridgeSocket });
    const hello = {
      type: "hello",
      bridge_major: BRIDGE_MAJOR - 1,
      role: "mcp",
      nonce: freshNonce(),
    };
    await writeAll(conn, encodeFrame(hello, 1024));
    const answer = await new FrameReader(conn.readable, 1024 * 1024).next() as Frame;
    conn.close();
    assertEquals(answer?.type, "refused");
    assertMatch(
      answer!.message!,
      new RegExp(
        `this service speaks bridge ${BRIDGE_MAJOR}, the connector ${BRIDGE_MAJOR - 1}; ` +
          "restart the MCP client or the browser so its connector comes from the same install",
      ),
    );
  } finally {
    service.kill("SIGTERM");
    await service.status;
    await testEnv.dispose();
  }
});
