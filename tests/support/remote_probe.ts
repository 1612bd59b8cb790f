/**
 * Run by tests/remote_permissions_test.ts in place of the remote shore's entry point, under the
 * `remote-shore` set and the flags `remote start` gives it: tries what a compromised shore might
 * try and prints which attempts were allowed.
 *
 * @module
 */

/** What the probe tries to reach. */
export interface RemoteProbeTargets {
  /** The remote's host and port: the one TCP grant. */
  granted: { hostname: string; port: number };
  /** Another port on the same host, listening too. */
  other: { hostname: string; port: number };
  /** The service's own key. */
  serviceKey: string;
  /** A file in the person's home folder. */
  homeFile: string;
  /** The instance's config folder, where the shore must write nothing. */
  configDir: string;
}

async function attempt(action: () => unknown): Promise<string> {
  try {
    const value = await action();
    if (value && typeof (value as Deno.Conn).close === "function") (value as Deno.Conn).close();
    return "allowed";
  } catch (error) {
    // fetch wraps the refusal in a TypeError.
    const refusal = error instanceof Deno.errors.NotCapable ||
      (error as Error).cause instanceof Deno.errors.NotCapable ||
      /Requires net access/.test(String((error as Error).message));
    return refusal ? "refused" : `failed: ${(error as Error).name}: ${(error as Error).message}`;
  }
}

const targets: RemoteProbeTargets = JSON.parse(Deno.args[0]);
console.log(JSON.stringify({
  granted: await attempt(() => Deno.connect(targets.granted)),
  otherPort: await attempt(() => Deno.connect(targets.other)),
  dns: await attempt(() => Deno.resolveDns("example.com", "A")),
  fetch: await attempt(() =>
    fetch(`http://127.0.0.1:${targets.other.port}/`, { signal: AbortSignal.timeout(5_000) })
  ),
  listen: await attempt(() => Deno.listen({ hostname: "127.0.0.1", port: 0 })),
  readServiceKey: await attempt(() => Deno.readFile(targets.serviceKey)),
  readHome: await attempt(() => Deno.readFile(targets.homeFile)),
  writeConfig: await attempt(() => Deno.writeTextFile(`${targets.configDir}/x`, "x")),
  run: await attempt(() => new Deno.Command("true").output()),
}));
