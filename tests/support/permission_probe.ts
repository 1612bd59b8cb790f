/**
 * Run under one of the executables' permission sets by tests/permissions_test.ts: tries what a
 * compromised process might try and prints which attempts the set allowed.
 *
 * @module
 */

async function attempt(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
    return "allowed";
  } catch (error) {
    return error instanceof Deno.errors.NotCapable ? "refused" : `failed: ${(error as Error).name}`;
  }
}

const socketDir = Deno.args[0];
const results = {
  tcpLoopback: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: 9 })),
  tcpListen: await attempt(() =>
    Promise.resolve().then(() => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close())
  ),
  tcpLoopbackV6: await attempt(() => Deno.connect({ hostname: "::1", port: 9 })),
  tcpLocalhost: await attempt(() => Deno.connect({ hostname: "localhost", port: 9 })),
  tcpListenAllV6: await attempt(() =>
    Promise.resolve().then(() => Deno.listen({ hostname: "::", port: 0 }).close())
  ),
  dns: await attempt(() => Deno.resolveDns("example.com", "A")),
  runShell: await attempt(() => new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output()),
  runDenoByName: await attempt(() => new Deno.Command("deno", { args: ["--version"] }).output()),
  ffi: await attempt(() => Promise.resolve().then(() => Deno.dlopen("libc.so.6", {}))),
  unixSocket: await attempt(async () => {
    const path = `${socketDir}/probe.sock`;
    const listener = Deno.listen({ transport: "unix", path });
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    listener.close();
  }),
};
console.log(JSON.stringify(results));
