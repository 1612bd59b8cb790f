/**
 * Installing compiled executables (what `install.ts` does where it could compile them for the
 * user's instance): they, the installer and doctor are copied into the prefix's libexec, the launchers
 * run them with the instance pinned (the MCP connector told its service entry, which runs the
 * compiled service), a second install changes nothing, and uninstall removes them all. This
 * machine cannot compile (no `denort`), so small scripts stand in for the binaries: the install
 * only copies and points at them.
 */

import { assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv, ROOT } from "./support/env.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { type Host, install, uninstall } from "../service/install/mod.ts";

const NAMES = [
  "ghostlight",
  "ghostlight-mcp-connector",
  "ghostlight-browser-connector",
  "ghostlight-installer",
  "ghostlight-doctor",
];

Deno.test("compiled executables are installed into libexec and removed again", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const before: string[] = [];
    for await (const entry of Deno.readDir(testEnv.home)) before.push(entry.name);
    const built = `${testEnv.home}/dist/linux-x64`;
    await Deno.mkdir(built, { recursive: true });
    for (const name of NAMES) {
      await Deno.writeTextFile(`${built}/${name}`, `#!/bin/sh\necho ${name} "$@"\n`, {
        mode: 0o755,
      });
    }
    const host: Host = { platform: "linux", env: (key) => testEnv.env[key] };
    const paths = resolveInstancePaths(testEnv.instance, host.env);
    const payload = {
      kind: "compiled" as const,
      binDir: built,
      extensionDir: `${ROOT}/extension`,
    };
    const options = { payload, dryRun: false, clients: null, browsers: null, autostart: true };
    const first = await install({ host, paths }, options);
    assertEquals(first.mode, "compiled");
    const prefix = `${testEnv.home}/.local/share/ghostlight-${testEnv.instance}`;
    for (const name of NAMES) {
      assertEquals(
        await Deno.readTextFile(`${prefix}/libexec/${name}`),
        await Deno.readTextFile(`${built}/${name}`),
      );
    }
    const launcher = `${testEnv.home}/.local/bin/ghostlight-${testEnv.instance}-mcp-connector`;
    const script = await Deno.readTextFile(launcher);
    assertMatch(script, new RegExp(`GHOSTLIGHT_INSTANCE='${testEnv.instance}'`));
    const ran = await new Deno.Command(launcher, { args: ["--x"], env: testEnv.env }).output();
    assertEquals(
      new TextDecoder().decode(ran.stdout),
      `ghostlight-mcp-connector --service-entry ${prefix}/service-entry --x\n`,
    );
    // The entry the connector may run starts the compiled service, and only that.
    const served = await new Deno.Command(`${prefix}/service-entry`, { args: ["service"] })
      .output();
    assertEquals(new TextDecoder().decode(served.stdout), "ghostlight service\n");

    // The service starts at login; the remote shores' entry is not written, since a compiled
    // install cannot start a shore yet ('remote start' refuses there; decision 0532).
    const units = `${testEnv.env.XDG_CONFIG_HOME}/systemd/user`;
    assertMatch(
      await Deno.readTextFile(`${units}/ghostlight-${testEnv.instance}.service`),
      new RegExp(
        `\nExecStart="${testEnv.home}/\.local/bin/ghostlight-${testEnv.instance}" service\n`,
      ),
    );
    assertEquals(
      await Deno.stat(`${units}/ghostlight-${testEnv.instance}-remotes.service`).catch(() => null),
      null,
    );

    const second = await install({ host, paths }, options);
    assertEquals(second.changes, []);

    await uninstall({ host, paths }, { dryRun: false });
    const left: string[] = [];
    for await (const entry of Deno.readDir(testEnv.home)) left.push(entry.name);
    assertEquals(left.sort(), [...before, "dist"].sort());
  } finally {
    await testEnv.dispose();
  }
});
