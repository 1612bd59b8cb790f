/**
 * The remote shore's permissions (decision 0400): under the `remote-shore` set and the flags
 * `ghostlight remote start` gives it, a process reaches the remote's one host and port and the
 * bridge socket, and nothing else: no other port, no DNS, no listening, no program, no key but its
 * role's, no file of the home folder, no write.
 *
 * @module
 */

import { resolveInstancePaths } from "../shared/instance.ts";
import { permissionFlags } from "../service/privilege/mod.ts";
import { assertEquals } from "./support/assert.ts";
import { makeTestEnv, ROOT } from "./support/env.ts";
import type { RemoteProbeTargets } from "./support/remote_probe.ts";

Deno.test("the remote shore may reach its remote's host and port and nothing else", async () => {
  const testEnv = await makeTestEnv("rp");
  const granted = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const other = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
    await Deno.mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
    await Deno.mkdir(paths.configDir, { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(paths.keys.service, "secret", { mode: 0o600 });
    const homeFile = `${testEnv.home}/notes.txt`;
    await Deno.writeTextFile(homeFile, "private");
    const port = (granted.addr as Deno.NetAddr).port;
    const targets: RemoteProbeTargets = {
      granted: { hostname: "127.0.0.1", port },
      other: { hostname: "127.0.0.1", port: (other.addr as Deno.NetAddr).port },
      serviceKey: paths.keys.service,
      homeFile,
      configDir: paths.configDir,
    };
    const flags = permissionFlags("remote-shore", testEnv.plan, {
      remote: { name: "agent", host: `127.0.0.1:${port}` },
    });
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        ...["run", "-q", "--no-prompt", "-P=remote-shore", "--config", `${ROOT}/deno.json`],
        ...flags,
        `${ROOT}/tests/support/remote_probe.ts`,
        JSON.stringify(targets),
      ],
      env: testEnv.env,
      clearEnv: true,
    }).output();
    const said = new TextDecoder().decode(output.stdout);
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
    assertEquals(JSON.parse(said), {
      granted: "allowed",
      otherPort: "refused",
      dns: "refused",
      fetch: "refused",
      listen: "refused",
      readServiceKey: "refused",
      readHome: "refused",
      writeConfig: "refused",
      run: "refused",
    });
  } finally {
    granted.close();
    other.close();
    await testEnv.dispose();
  }
});
