/**
 * The one-line installer: `install.sh` finds Deno and runs `install.ts`, from a checkout or from
 * a tarball of one it fetches (the release archive: install_release_test.ts), and
 * `install.sh uninstall` takes it all away again.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv, ROOT, type TestEnv } from "./support/env.ts";

async function sh(
  testEnv: TestEnv,
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command("sh", {
    args: [script, ...args],
    env: { ...testEnv.env, ...env },
    clearEnv: true,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

Deno.test("install.sh from a checkout installs, and install.sh uninstall removes it", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const before: string[] = [];
    for await (const entry of Deno.readDir(testEnv.home)) before.push(entry.name);
    const server = `ghostlight-${testEnv.instance}`;
    // With the login entries (the default): the service's and the remote shores' (decision 0532).
    const options = ["--instance", testEnv.instance];
    const installed = await sh(testEnv, `${ROOT}/install.sh`, [
      "--sources",
      ...options,
      "--client",
      "claude-code",
      "--browser",
      "chromium",
    ]);
    assertEquals(installed.code, 0, installed.out);
    assertMatch(
      installed.out,
      /Installed Ghostlight into .*launchers that run the installed sources/,
    );
    const units = `${testEnv.env.XDG_CONFIG_HOME}/systemd/user`;
    const cli = `${testEnv.home}/.local/bin/${server}`;
    assertMatch(
      await Deno.readTextFile(`${units}/${server}.service`),
      new RegExp(`\nExecStart="${cli}" service\n`),
    );
    assertMatch(
      await Deno.readTextFile(`${units}/${server}-remotes.service`),
      new RegExp(
        `\nAfter=${server}\.service\n[\\s\\S]*\nExecStart="${cli}" remote start --at-login\n`,
      ),
    );
    assertMatch(
      await Deno.readTextFile(`${units}/default.target.d/${server}-remotes.conf`),
      new RegExp(`\nWants=${server}-remotes\.service\n`),
    );
    const claude = JSON.parse(await Deno.readTextFile(`${testEnv.home}/.claude.json`));
    assertEquals(
      claude.mcpServers[server].command,
      `${testEnv.home}/.local/bin/${server}-mcp-connector`,
    );

    const removed = await sh(testEnv, `${ROOT}/install.sh`, [
      "uninstall",
      "--instance",
      testEnv.instance,
    ]);
    assertEquals(removed.code, 0, removed.out);
    const left: string[] = [];
    for await (const entry of Deno.readDir(testEnv.home)) left.push(entry.name);
    assertEquals(left.sort(), before.sort(), "nothing of ours is left");
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("install.sh outside a checkout fetches GHOSTLIGHT_SOURCE, or the release it names", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const alone = `${testEnv.home}/fetched/install.sh`;
    await Deno.mkdir(`${testEnv.home}/fetched`);
    await Deno.copyFile(`${ROOT}/install.sh`, alone);
    const refused = await sh(testEnv, alone, ["--dry-run"]);
    assertEquals(refused.code, 1);
    // Without a source it takes the release from GHOSTLIGHT_RELEASE_URL, whose default names
    // no real host.
    assertMatch(refused.out, /install\.sh: could not fetch https:\/\/ghostlight\.invalid\//);

    // A tarball of this checkout, as a release would publish it, fetched by URL.
    const tarball = `${testEnv.home}/ghostlight.tar.gz`;
    const packed = await new Deno.Command("tar", {
      args: [
        "-czf",
        tarball,
        "--exclude=.git",
        "--exclude=dist",
        "-C",
        ROOT.replace(/\/[^/]*$/, ""),
        ROOT.replace(/^.*\//, ""),
      ],
    }).output();
    assert(packed.success, new TextDecoder().decode(packed.stderr));
    const fetched = await sh(
      testEnv,
      alone,
      ["--sources", "--dry-run", "--instance", testEnv.instance, "--no-autostart"],
      { GHOSTLIGHT_SOURCE: `file://${tarball}` },
    );
    assertEquals(fetched.code, 0, fetched.out);
    assertMatch(fetched.out, /Would install Ghostlight into/);
  } finally {
    await testEnv.dispose();
  }
});
