/**
 * The service's footing: owner-only runtime dir and sockets, one service per instance, status,
 * demand start by a connector and idle exit, and another OS user kept out.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type InstancePaths, resolveInstancePaths } from "../shared/instance.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { executable, makeTestEnv, type TestEnv } from "./support/env.ts";
import { ghostlight, startService } from "./support/processes.ts";
import { waitFor } from "./support/wait.ts";

function pathsOf(testEnv: TestEnv): InstancePaths {
  return resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("the service refuses a runtime dir that other users can enter", async () => {
  const testEnv = await makeTestEnv();
  try {
    const paths = pathsOf(testEnv);
    await Deno.mkdir(paths.runtimeDir, { recursive: true });
    await Deno.chmod(paths.runtimeDir, 0o755);
    const result = await ghostlight(testEnv, ["service"]);
    assertEquals(result.code, 1);
    assertMatch(result.stderr, /is open to other users \(mode 755\); run 'chmod 700/);
    assert(!(await exists(paths.bridgeSocket)), "no socket was created");
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("the service refuses a runtime dir that is a symbolic link", async () => {
  const testEnv = await makeTestEnv();
  try {
    const paths = pathsOf(testEnv);
    const decoy = await Deno.makeTempDir({ dir: testEnv.home });
    await Deno.mkdir(paths.runtimeDir.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.symlink(decoy, paths.runtimeDir);
    const result = await ghostlight(testEnv, ["service"]);
    assertEquals(result.code, 1);
    assertMatch(result.stderr, /is a symbolic link; refusing to use it/);
    assertEquals([...Deno.readDirSync(decoy)], [], "nothing was created through the link");
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("one service per instance, owner-only sockets, status, clean stop", async () => {
  const testEnv = await makeTestEnv();
  const paths = pathsOf(testEnv);
  const service = startService(testEnv);
  try {
    // The service says it listens once every socket is bound and made owner-only.
    await waitFor(
      async () => (await Deno.readTextFile(paths.logFile)).includes(" listening in "),
      "the service to listen",
    );
    for (
      const path of [
        paths.bridgeSocket,
        paths.browserSocket,
        paths.controlSocket,
        ...Object.values(paths.keys),
      ]
    ) {
      assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600, path);
    }
    assertEquals((await Deno.stat(paths.runtimeDir)).mode! & 0o777, 0o700);
    assertEquals((await Deno.stat(paths.stateDir)).mode! & 0o777, 0o700);

    const status = JSON.parse((await ghostlight(testEnv, ["status", "--json"])).stdout);
    assertEquals(status.service.instance, testEnv.instance);
    assertEquals(status.service.pid, service.pid);
    assertEquals(status.browsers, []);
    const human = await ghostlight(testEnv, ["status"]);
    assertMatch(human.stdout, new RegExp(`instance '${testEnv.instance}'`));

    const second = await ghostlight(testEnv, ["service"]);
    assertEquals(second.code, 4);
    assertMatch(second.stderr, /already running/);
    assert(await exists(paths.bridgeSocket), "the first service's socket survives");
  } finally {
    service.kill("SIGTERM");
    assertEquals((await service.status).code, 0);
    assert(!(await exists(paths.bridgeSocket)), "sockets are removed at stop");
    const after = await ghostlight(testEnv, ["status"]);
    assertEquals(after.code, 3);
    assertMatch(after.stdout, /is not running/);
    await testEnv.dispose();
  }
});

Deno.test("a connector starts the service on demand; it exits when idle", async () => {
  const testEnv = await makeTestEnv();
  const paths = pathsOf(testEnv);
  const { command, args } = executable(testEnv, "mcp-connector", ["--instance", testEnv.instance]);
  const client = new Client({ name: "demand-test", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command,
        args,
        env: { ...testEnv.env, GHOSTLIGHT_IDLE_EXIT_MS: "500" },
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    assert(tools.length >= 5, "the demand-started service serves the catalog");
    const status = JSON.parse((await ghostlight(testEnv, ["status", "--json"])).stdout);
    assertEquals(status.connectors.length, 1);
    assertMatch(status.connectors[0].client, /^demand-test 1\.0\.0$/);
    await client.close();
    await waitFor(async () => !(await exists(paths.bridgeSocket)), "the idle exit", 15_000);
    assertEquals((await ghostlight(testEnv, ["status"])).code, 3);
  } finally {
    await client.close().catch(() => {});
    await testEnv.dispose();
  }
});

Deno.test({
  name: "another OS user cannot reach the sockets",
  // Acting as 'nobody' needs root; CI runs as root.
  ignore: Deno.uid() !== 0 || !(await exists("/usr/bin/python3")),
}, async () => {
  const testEnv = await makeTestEnv();
  const paths = pathsOf(testEnv);
  const service = startService(testEnv);
  try {
    await waitFor(() => exists(paths.controlSocket), "the service");
    // The test HOME must be traversable for the other user to get as far as the runtime dir.
    await Deno.chmod(testEnv.home, 0o711);
    await Deno.chmod(`${testEnv.home}/run`, 0o711);
    const probe = [
      "import socket, sys",
      "s = socket.socket(socket.AF_UNIX)",
      "try:",
      "    s.connect(sys.argv[1]); print('connected')",
      "except PermissionError: print('denied')",
      "except Exception as e: print(type(e).__name__)",
    ].join("\n");
    const tryAll = async (why: string) => {
      for (const socket of [paths.bridgeSocket, paths.browserSocket, paths.controlSocket]) {
        const output = await new Deno.Command("setpriv", {
          args: [
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            probe,
            socket,
          ],
        }).output();
        assertEquals(
          new TextDecoder().decode(output.stdout).trim(),
          "denied",
          `${socket} (${why})`,
        );
      }
    };
    await tryAll("the runtime dir is 0700");
    // Even with the folder opened up, each socket's own 0600 mode keeps the other user out.
    await Deno.chmod(paths.runtimeDir, 0o711);
    await tryAll("each socket is 0600");
  } finally {
    service.kill("SIGTERM");
    await service.status;
    await testEnv.dispose();
  }
});
