/**
 * Files that are not what they seem, against a real service process: a policy file that is a
 * FIFO does not keep the service from starting (status says why, and everything is refused), and
 * a 75 MB policy file is refused unread, with its size in the reason, while the service's memory
 * stays where it was.
 */

import { resolveInstancePaths } from "../shared/instance.ts";
import { fetchStatus } from "../service/control/mod.ts";
import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { makeTestEnv } from "./support/env.ts";
import { ghostlight, startService } from "./support/processes.ts";
import { waitFor } from "./support/wait.ts";

/** The resident memory of process `pid`, in bytes. */
async function residentBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

/** What `status --json` says of the policy. */
async function policyProblem(testEnv: Parameters<typeof ghostlight>[0]): Promise<string | null> {
  const out = await ghostlight(testEnv, ["status", "--json"]);
  return JSON.parse(out.stdout).person?.policy.problem ?? null;
}

Deno.test("a FIFO policy file: the service starts, refuses everything, and says why", async () => {
  const testEnv = await makeTestEnv();
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  await Deno.mkdir(paths.configDir, { recursive: true });
  const made = await new Deno.Command("mkfifo", { args: [paths.policyFile] }).output();
  assert(made.success);
  const service = startService(testEnv);
  try {
    await waitFor(
      async () => (await fetchStatus(paths.controlSocket)).service !== null,
      "the service to start with a FIFO for its policy file",
    );
    const status = await ghostlight(testEnv, ["status"]);
    assertEquals(status.code, 0, status.stderr);
    assertMatch(
      status.stdout,
      /Problem: .*policy\.jsonc cannot be read: .*is a FIFO \(named pipe\), not a regular file; it is not read; everything is refused until it is fixed/,
    );
  } finally {
    service.kill("SIGTERM");
    await service.status;
    await testEnv.dispose();
  }
});

Deno.test("a 75 MB policy file is refused unread, and the service's memory stays bounded", async () => {
  const testEnv = await makeTestEnv();
  testEnv.env.GHOSTLIGHT_POLICY_RELOAD_MS = "100";
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  await Deno.mkdir(paths.configDir, { recursive: true });
  await Deno.writeTextFile(paths.policyFile, `{ "default": "allow" }`);
  const service = startService(testEnv);
  try {
    await waitFor(async () => (await fetchStatus(paths.controlSocket)).service !== null, "service");
    const pid = (await fetchStatus(paths.controlSocket)).service.pid;
    const before = await residentBytes(pid);
    // Valid JSONC all the way: a comment 75 MB long, so only its size is wrong with it.
    const huge = new TextEncoder().encode(
      `{ "default": "deny" } //${"x".repeat(75 * 1024 * 1024)}`,
    );
    await Deno.writeFile(paths.policyFile, huge);
    const refusal = new RegExp(`is ${huge.length} bytes, more than the 1048576 this file may be`);
    await waitFor(
      async () => refusal.test(await policyProblem(testEnv) ?? ""),
      "status to report the huge policy file",
    );
    assertMatch(
      (await policyProblem(testEnv))!,
      /the policy that was in force stays until it is fixed/,
    );
    const grown = (await residentBytes(pid)) - before;
    assert(grown < 40 * 1024 * 1024, `the service grew by ${grown} bytes`);
  } finally {
    service.kill("SIGTERM");
    await service.status;
    await testEnv.dispose();
  }
});
