/**
 * Another OS user is locked out: a throwaway user, made for this test, can neither connect to any
 * of a running service's sockets nor read its keys, its log or its audit, even with every folder
 * above the instance's own opened to it. Creating a user needs root (CI runs as root).
 */

import { assertEquals } from "./support/assert.ts";
import { makeTestEnv } from "./support/env.ts";
import { startService } from "./support/processes.ts";
import { fetchStatus } from "../service/control/mod.ts";
import { waitFor } from "./support/wait.ts";

const PYTHON = "/usr/bin/python3";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function run(command: string, args: string[]): Promise<Deno.CommandOutput> {
  return await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
}

/** What the other user tries, one line of outcome per target. */
const PROBE = `
import json, socket, sys
out = {}
for target in json.loads(sys.argv[1]):
    try:
        if target.endswith(".sock"):
            s = socket.socket(socket.AF_UNIX)
            s.connect(target)
            out[target] = "connected"
        else:
            open(target, "rb").read(1)
            out[target] = "read"
    except PermissionError:
        out[target] = "denied"
    except Exception as e:
        out[target] = type(e).__name__
print(json.dumps(out))
`;

Deno.test({
  name: "another OS user cannot reach any socket nor read a key, the log or the audit",
  ignore: Deno.uid() !== 0 || !(await exists(PYTHON)) || !(await exists("/usr/sbin/useradd")),
}, async () => {
  const user = `glout${crypto.randomUUID().slice(0, 6)}`;
  const made = await run("useradd", ["--no-create-home", "--shell", "/usr/sbin/nologin", user]);
  assertEquals(made.code, 0, new TextDecoder().decode(made.stderr));
  const testEnv = await makeTestEnv("lock");
  const paths = testEnv.plan.paths;
  const service = startService(testEnv);
  try {
    await waitFor(() => fetchStatus(paths.controlSocket).then(() => true), "the service");
    // The audit log is the service's to write; one is laid where it lives, as it would be.
    await Deno.writeTextFile(paths.auditFile, '{"record":1}\n', { mode: 0o600 });
    const uid = new TextDecoder().decode((await run("id", ["-u", user])).stdout).trim();
    // Everything above the instance's own folders is opened up: only Ghostlight's modes remain.
    for (const dir of [testEnv.home, `${testEnv.home}/run`, `${testEnv.home}/state`]) {
      await Deno.chmod(dir, 0o755);
    }
    const targets = [
      paths.bridgeSocket,
      paths.browserSocket,
      paths.controlSocket,
      ...Object.values(paths.keys),
      paths.logFile,
      paths.auditFile,
    ];
    const probe = await run("setpriv", [
      `--reuid=${uid}`,
      `--regid=${uid}`,
      "--clear-groups",
      PYTHON,
      "-c",
      PROBE,
      JSON.stringify(targets),
    ]);
    const results = JSON.parse(new TextDecoder().decode(probe.stdout));
    assertEquals(results, Object.fromEntries(targets.map((target) => [target, "denied"])));
  } finally {
    service.kill("SIGTERM");
    await service.status;
    await testEnv.dispose();
    await run("userdel", [user]);
  }
});
