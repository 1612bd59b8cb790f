/**
 * The person's commands that need no browser: `paths`, `policy init` (commented, valid, never
 * over an existing file), `policy explain`, and the answers of `audit verify` and the controls
 * when there is nothing to verify or no service to ask.
 */

import { assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv } from "./support/env.ts";
import { ghostlight } from "./support/processes.ts";

Deno.test("paths, policy init and explain, and the answers when nothing runs yet", async () => {
  const testEnv = await makeTestEnv();
  try {
    const listed = await ghostlight(testEnv, ["paths", "--json"]);
    assertEquals(listed.code, 0, listed.stderr);
    const paths = JSON.parse(listed.stdout);
    assertEquals(paths.instance, testEnv.instance);
    assertEquals(
      paths.policyFile,
      `${testEnv.home}/config/ghostlight-${testEnv.instance}/policy.jsonc`,
    );
    assertEquals(
      paths.auditFile,
      `${testEnv.home}/state/ghostlight-${testEnv.instance}/audit.jsonl`,
    );
    for (const key of ["runtimeDir", "bridgeSocket", "browserSocket", "controlSocket", "logFile"]) {
      assertEquals(typeof paths[key], "string", key);
    }
    assertMatch((await ghostlight(testEnv, ["paths"])).stdout, /^policyFile\s+\/.*policy\.jsonc$/m);

    const none = await ghostlight(testEnv, ["policy", "explain"]);
    assertEquals(none.code, 0, none.stderr);
    assertMatch(none.stdout, /^No policy file \(.*\): everything is allowed except sacred sites\./);

    const init = await ghostlight(testEnv, ["policy", "init", "--template", "allowlist"]);
    assertEquals(init.code, 0, init.stderr);
    assertMatch(
      init.stdout,
      /^Wrote .*policy\.jsonc \(allowlist: agents work only on the sites you list\)/,
    );
    assertEquals((await Deno.stat(paths.policyFile)).mode! & 0o777, 0o600);
    const written = await Deno.readTextFile(paths.policyFile);
    const again = await ghostlight(testEnv, ["policy", "init"]);
    assertEquals(again.code, 1);
    assertMatch(again.stderr, /already exists; edit it, or move it away/);
    assertEquals(await Deno.readTextFile(paths.policyFile), written, "never overwritten");
    for (const name of ["lax", "constructor"]) {
      const unknown = await ghostlight(testEnv, ["policy", "init", "--template", name]);
      assertEquals(unknown.code, 2, unknown.stderr);
      assertMatch(
        unknown.stderr,
        new RegExp(`there is no template "${name}"; the templates are: `),
      );
    }

    const explained = await ghostlight(testEnv, ["policy", "explain", "--host", "localhost"]);
    assertEquals(explained.code, 0, explained.stderr);
    assertMatch(explained.stdout, /By default every capability is refused/);
    assertMatch(explained.stdout, /1\. Every principal on localhost, 127\.0\.0\.1: may read pages/);
    assertMatch(
      explained.stdout,
      /On localhost, for any principal:\n {2}read +allowed +grant 1 of /,
    );

    await Deno.writeTextFile(paths.policyFile, `{ "default": "maybe" }`);
    const broken = await ghostlight(testEnv, ["policy", "explain"]);
    assertEquals(broken.code, 1);
    assertMatch(broken.stderr, /is not a valid policy at default: "default" must be "allow"/);

    const verify = await ghostlight(testEnv, ["audit", "verify"]);
    assertEquals(verify.code, 1);
    assertMatch(verify.stderr, /there is no audit at .*audit\.jsonl yet/);
    const outside = await Deno.makeTempFile({ suffix: ".jsonc" });
    try {
      for (const argv of [["policy", "explain", outside], ["audit", "verify", outside]]) {
        const far = await ghostlight(testEnv, argv);
        assertEquals(far.code, 1, far.stderr);
        assertMatch(far.stderr, /is outside the folders this command may read \(your home/);
      }
    } finally {
      await Deno.remove(outside);
    }
    const tail = await ghostlight(testEnv, ["audit", "tail"]);
    assertEquals([tail.code, tail.stdout], [0, ""]);
    assertMatch(tail.stderr, /there are no audit records at .*audit\.jsonl yet/);
    const hold = await ghostlight(testEnv, ["hold"]);
    assertEquals(hold.code, 3);
    assertMatch(hold.stderr, /is not running; no agent can act/);
    const badNumber = await ghostlight(testEnv, ["stop", "two"]);
    assertEquals(badNumber.code, 2);
  } finally {
    await testEnv.dispose();
  }
});

Deno.test("policy simulate lists the calls a policy would ask the person about", async () => {
  const testEnv = await makeTestEnv();
  try {
    const policy = `${testEnv.home}/ask.jsonc`;
    await Deno.writeTextFile(
      policy,
      `{ "default": "allow", "grants": [{ "hosts": ["shop.test"], "ask": ["write"] }] }`,
    );
    const record = (seq: number, tool: string, capability: string) =>
      JSON.stringify({
        seq,
        time: "2026-12-06T10:00:00.000Z",
        kind: "decision",
        result: "allowed",
        principal: "agent",
        client: "client 1.0",
        workspace: null,
        work: null,
        tool,
        action: null,
        host: "shop.test",
        capabilities: [capability],
        rule: "no policy file",
        args: "none",
        prev: null,
        hash: "sha256:0",
      });
    const audit = `${testEnv.home}/audit.jsonl`;
    await Deno.writeTextFile(
      audit,
      [record(1, "form_input", "write"), record(2, "read_page", "read")].join("\n") + "\n",
    );
    const simulated = await ghostlight(testEnv, ["policy", "simulate", policy, "--replay", audit]);
    assertEquals(simulated.code, 0, simulated.stderr);
    assertMatch(
      simulated.stdout,
      /audit\.jsonl:1: .* agent \(its client says: client 1\.0\) form_input on shop\.test would ask the person \(grant 1 of .* asks the person before write\); it was allowed/,
    );
    assertMatch(simulated.stdout, /0 of 2 decision\(s\) would have been refused/);
    assertMatch(simulated.stdout, /1 of 2 decision\(s\) would have waited for the person's answer/);
  } finally {
    await testEnv.dispose();
  }
});
