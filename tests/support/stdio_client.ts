/**
 * A stand-in for an MCP client process that starts its server as the README's by-hand config
 * does: it runs `scripts/start.ts` with the arguments it was given, writes everything it reads
 * into the server's stdin and lets the server write to its own stdout. Killing it is killing the
 * client: the pipe into the starter closes with it.
 *
 * Usage: `deno run -A tests/support/stdio_client.ts <start.ts arguments...>`.
 *
 * @module
 */

const starter = new URL("../../scripts/start.ts", import.meta.url).pathname;
const server = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", starter, ...Deno.args],
  stdin: "piped",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
Deno.stdin.readable.pipeTo(server.stdin).catch(() => {});
Deno.exit((await server.status).code);
