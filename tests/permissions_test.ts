/**
 * Each executable's permission set, as declared in deno.json and as enforced when a process
 * runs under it: Unix sockets yes; IPv4, FFI and arbitrary programs no.
 */

import { assert, assertEquals } from "./support/assert.ts";
import { ROOT } from "./support/env.ts";

const SETS = ["mcp-connector", "service", "browser-connector"] as const;

const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));

Deno.test("no permission set grants everything", () => {
  for (const name of SETS) {
    const set = config.permissions[name];
    assert(set, `${name} is declared`);
    assert(set.all === undefined, `${name} has no 'all'`);
    assert(set.ffi === undefined, `${name} has no ffi`);
    assertEquals(
      set.net?.deny,
      ["0.0.0.0/0", "[::]", "[::1]", "localhost"],
      `${name} denies IPv4, the IPv6 wildcard and loopback`,
    );
  }
  assertEquals(config.permissions["mcp-connector"].run, ["deno", "ghostlight"]);
  assertEquals(config.permissions["service"].run, ["chromium"]);
  assertEquals(config.permissions["browser-connector"].run, undefined);
  assertEquals(config.permissions["browser-connector"].write, true);
});

Deno.test("the sets are enforced on running processes", async () => {
  const socketDir = await Deno.makeTempDir({ prefix: "gl-perm-" });
  try {
    const expected: Record<string, Record<string, string>> = {
      "mcp-connector": { runDenoByName: "allowed" },
      "service": { runDenoByName: "refused" },
      "browser-connector": { runDenoByName: "refused" },
    };
    for (const name of SETS) {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-q",
          `-P=${name}`,
          "--config",
          `${ROOT}/deno.json`,
          `${ROOT}/tests/support/permission_probe.ts`,
          socketDir,
        ],
        env: { PATH: `${Deno.execPath().replace(/\/[^/]*$/, "")}:${Deno.env.get("PATH")}` },
      }).output();
      const text = new TextDecoder().decode(output.stdout);
      assert(output.success, `${name} probe ran: ${new TextDecoder().decode(output.stderr)}`);
      assertEquals(JSON.parse(text), {
        tcpLoopback: "refused",
        tcpListen: "refused",
        tcpLoopbackV6: "refused",
        tcpLocalhost: "refused",
        tcpListenAllV6: "refused",
        dns: "refused",
        runShell: "refused",
        ffi: "refused",
        unixSocket: "allowed",
        ...expected[name],
      }, name);
    }
  } finally {
    await Deno.remove(socketDir, { recursive: true });
  }
});
