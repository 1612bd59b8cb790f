/**
 * Run by tests/permissions_test.ts in place of an executable's entry point, under that
 * executable's permission set and its instance's flags (exactly as the executable is started):
 * tries what a compromised process might try and prints which attempts were allowed.
 *
 * Argument: a JSON object of the paths to try (see {@linkcode ProbeTargets}).
 *
 * @module
 */

/** What the probe tries to reach. */
export interface ProbeTargets {
  /** A socket of its own instance that something listens on. */
  ownSocket: string;
  /** A socket of another instance of the same user that something listens on. */
  otherSocket: string;
  /** The key its role proves itself with (the service's own secret for the service). */
  ownKey: string;
  /** The same key of another instance. */
  otherKey: string;
  /** Every key file of its own instance, by role. */
  keys: Record<string, string>;
  /** A file inside its instance's state folder. */
  ownStateFile: string;
  /** A file in the user's home folder. */
  homeFile: string;
  /** A file in the system's temporary folder. */
  tmpFile: string;
  /** The fixed entry the MCP connector may start the service with. */
  serviceEntry: string;
}

async function attempt(action: () => unknown): Promise<string> {
  try {
    await action();
    return "allowed";
  } catch (error) {
    return error instanceof Deno.errors.NotCapable ? "refused" : `failed: ${(error as Error).name}`;
  }
}

/** Runs a program to the end; a non-zero exit still counts as allowed (it ran). */
async function run(command: string, args: string[], env?: Record<string, string>) {
  const output = await new Deno.Command(command, { args, env, stdout: "piped", stderr: "piped" })
    .output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

const targets: ProbeTargets = JSON.parse(Deno.args[0]);
let entryAnswer = "not run";
const results = {
  readShadow: await attempt(() => Deno.readFile("/etc/shadow")),
  readOwnKey: await attempt(() => Deno.readFile(targets.ownKey)),
  readOtherKey: await attempt(() => Deno.readFile(targets.otherKey)),
  readKeys: Object.fromEntries(
    await Promise.all(
      Object.entries(targets.keys).map(async ([role, file]) => [
        role,
        await attempt(() => Deno.readFile(file)),
      ]),
    ),
  ),
  writeOwnState: await attempt(() => Deno.writeTextFile(targets.ownStateFile, "x")),
  writeHome: await attempt(() => Deno.writeTextFile(targets.homeFile, "x", { append: true })),
  writeTmp: await attempt(() => Deno.writeTextFile(targets.tmpFile, "x")),
  envOther: await attempt(() => Deno.env.get("SSH_AUTH_SOCK")),
  envAll: await attempt(() => Deno.env.toObject()),
  sysHostname: await attempt(() => Deno.hostname()),
  runDenoByName: await attempt(() => run("deno", ["eval", "-A", "0"])),
  runDenoByPath: await attempt(() => run(Deno.execPath(), ["eval", "-A", "0"])),
  runShell: await attempt(() => run("/bin/sh", ["-c", "true"])),
  runServiceEntry: await attempt(async () => {
    // Everything after the entry is the service's own arguments: a Deno flag is not one.
    const { code, stderr } = await run(targets.serviceEntry, ["--allow-all", "version"], {
      DENO_V8_FLAGS: "--expose-gc",
    });
    entryAnswer = `${code}: ${stderr.trim().split("\n")[0]}`;
  }),
  ffi: await attempt(() => Deno.dlopen("libc.so.6", {})),
  tcpLoopback: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: 9 })),
  tcpLocalhost: await attempt(() => Deno.connect({ hostname: "localhost", port: 9 })),
  tcpHostname: await attempt(() => Deno.connect({ hostname: "example.com", port: 443 })),
  tcpLoopbackV6: await attempt(() => Deno.connect({ hostname: "::1", port: 9 })),
  tcpGlobalV6: await attempt(() => Deno.connect({ hostname: "2001:db8::1", port: 443 })),
  tcpListen: await attempt(() => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close()),
  tcpListenAllV6: await attempt(() => Deno.listen({ hostname: "::", port: 0 }).close()),
  fetchHttp: await attempt(() => fetch("http://example.com/")),
  dns: await attempt(() => Deno.resolveDns("example.com", "A")),
  unixOwn: await attempt(async () =>
    (await Deno.connect({ transport: "unix", path: targets.ownSocket })).close()
  ),
  unixOther: await attempt(async () =>
    (await Deno.connect({ transport: "unix", path: targets.otherSocket })).close()
  ),
};
console.log(JSON.stringify({ ...results, entryAnswer }));
