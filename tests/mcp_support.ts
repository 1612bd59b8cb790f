/**
 * Transcript testing for the MCP connector: spawn the real connector under its own permission
 * set with a client's filtered environment, write exact lines to its stdin, and read exact lines
 * from its stdout. Also the helpers the MCP and fault tests share.
 *
 * @module
 */

import { fetchStatus } from "../service/control/mod.ts";
import { Catalog } from "../service/catalog/mod.ts";
import { TOOLS } from "../service/tools/mod.ts";
import { resolveInstancePaths } from "../shared/instance.ts";
import { VERSION } from "../shared/version.ts";
import { assertEquals } from "./support/assert.ts";
import { executable, type TestEnv } from "./support/env.ts";
import { isRunning } from "./support/processes.ts";
import { serverDelay, signalOrTimeout, waitFor } from "./support/wait.ts";
export { startService } from "./support/processes.ts";
export { waitFor };

/** A connector process driven line by line. */
export interface Transcript {
  /** Writes `line` and a newline, byte for byte. */
  send(line: string): Promise<void>;
  /** Writes raw bytes, with no newline added. */
  sendRaw(bytes: Uint8Array): Promise<void>;
  /** The next stdout line, raw. */
  next(timeoutMs?: number): Promise<string>;
  /** The next stdout line, parsed. */
  nextJson(timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Asserts the next stdout line is exactly `JSON.stringify(expected)`. */
  expect(expected: unknown, timeoutMs?: number): Promise<void>;
  /**
   * Sends `request` and asserts that the very next line answers it; returns that answer. The
   * connector writes in the order it handles its input, so a line still owed for anything sent
   * earlier would come first: the proof that nothing more was said, where a test would
   * otherwise wait for silence.
   */
  probe(request: string): Promise<Record<string, unknown>>;
  /** Closes stdin and waits for the process to exit; returns the remaining stdout lines. */
  close(): Promise<{ code: number; rest: string[] }>;
  /** The process, for signals. */
  child: Deno.ChildProcess;
  stderr(): string;
}

/**
 * Starts a connector for the test's instance. `env` adds variables (deadlines, ...), `extra`
 * arguments (`--principal NAME`).
 */
export function startConnector(
  testEnv: TestEnv,
  env: Record<string, string> = {},
  extra: string[] = [],
): Transcript {
  const { command, args } = executable(testEnv, "mcp-connector", [
    "--instance",
    testEnv.instance,
    ...extra,
  ]);
  return transcriptOf(command, args, { ...testEnv.env, ...env });
}

/**
 * Starts a connector for the test's instance the way the README's by-hand config and the Claude
 * Desktop bundle do: through `scripts/start.ts`, which runs the connector as its child. With
 * `client`, a stand-in client process (`support/stdio_client.ts`) runs the starter in turn, as
 * a real client would, and the transcript's process is that client.
 */
export function startConnectorViaStarter(testEnv: TestEnv, client = false): Transcript {
  const program = new URL(
    client ? "./support/stdio_client.ts" : "../scripts/start.ts",
    import.meta.url,
  ).pathname;
  const args = ["run", "-A", program, "mcp-connector", "--instance", testEnv.instance];
  return transcriptOf(Deno.execPath(), args, testEnv.env);
}

/** Runs `command` with `args` in `env` alone, driven line by line. */
function transcriptOf(command: string, args: string[], env: Record<string, string>): Transcript {
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  let errText = "";
  const errDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) errText += decoder.decode(chunk);
  })();
  const lines: string[] = [];
  const waiters: AbortController[] = [];
  let ended = false;
  const outDone = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        lines.push(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        waiters.splice(0).forEach((waiter) => waiter.abort());
      }
    }
    ended = true;
    waiters.splice(0).forEach((waiter) => waiter.abort());
  })();
  const next = async (timeoutMs = 20_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    while (lines.length === 0) {
      if (ended) throw new Error(`the connector closed stdout; stderr:\n${errText}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line from the connector in ${timeoutMs} ms`);
      const arrival = new AbortController();
      waiters.push(arrival);
      await signalOrTimeout(arrival.signal, left);
    }
    return lines.shift()!;
  };
  const encoder = new TextEncoder();
  const send = (line: string) => writer.write(encoder.encode(`${line}\n`));
  return {
    child,
    stderr: () => errText,
    send,
    sendRaw: (bytes) => writer.write(bytes),
    next,
    nextJson: async (timeoutMs) => JSON.parse(await next(timeoutMs)),
    async expect(expected, timeoutMs) {
      assertEquals(await next(timeoutMs), JSON.stringify(expected));
    },
    async probe(request) {
      await send(request);
      const answer = JSON.parse(await next());
      assertEquals(answer.id, JSON.parse(request).id, `the next line answers ${request}`);
      return answer;
    },
    async close() {
      await writer.close().catch(() => {});
      const status = await child.status;
      await outDone;
      await errDone;
      return { code: status.code, rest: lines.splice(0) };
    },
  };
}

/** The modern envelope, as a JSON fragment for hand-written lines. */
export function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
}

/** One `tools/call` line; `meta` becomes its `_meta` (the 2026-07-28 envelope, a token). */
export function toolCall(
  id: number | string,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  });
}

/**
 * Initializes a `2025-11-25` connection as the client `name` and opens its first tab; returns
 * the tab's id.
 */
export async function legacyWithTab(name: string, mcp: Transcript): Promise<number> {
  await mcp.send(JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name, version: "1" },
    },
  }));
  await mcp.nextJson(30_000);
  await mcp.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  await mcp.send(toolCall(1, "tabs_context_mcp", { createIfEmpty: true }));
  const context = await mcp.nextJson();
  const structured = (context.result as { structuredContent?: { tabs: { tabId: number }[] } })
    ?.structuredContent;
  if (!structured) throw new Error(`the setup's tab was not made: ${JSON.stringify(context)}`);
  return structured.tabs[0].tabId;
}

/** The instructions, server identity and tool list every test expects, from the real catalog. */
export function expectedServer(testEnv: TestEnv): {
  info: { name: string; version: string };
  descriptors: ReturnType<Catalog["descriptors"]>;
} {
  return {
    info: { name: `ghostlight-${testEnv.instance}`, version: VERSION },
    descriptors: new Catalog(TOOLS).descriptors(),
  };
}

/** Stops the service of the test's instance, if one is running (demand-started ones too). */
export async function stopService(testEnv: TestEnv): Promise<void> {
  const paths = resolveInstancePaths(testEnv.instance, (key) => testEnv.env[key]);
  const status = await fetchStatus(paths.controlSocket).catch(() => null);
  const pid = status?.service?.pid;
  if (typeof pid !== "number") return;
  try {
    Deno.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  try {
    await waitFor(async () => !(await isRunning(pid)), `the service (pid ${pid}) to stop`);
  } catch (error) {
    // Left running, it would outlive the test and hold the instance's sockets.
    Deno.kill(pid, "SIGKILL");
    throw error;
  }
}

/** Pages that answer late, for real slow calls. */
export interface SlowServer {
  url(tag: string, ms: number): string;
  /** A page that answers once {@linkcode SlowServer.release} is called with its tag (60 s at most). */
  held(tag: string): string;
  release(tag: string): void;
  /** Tags the browser requested. */
  seen: string[];
  close(): Promise<void>;
}

/** Pages that answer after `ms`, titled by their tag; every request is recorded. */
export function serveSlowPages(): SlowServer {
  const seen: string[] = [];
  const releases = new Map<string, AbortController>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const tag = url.searchParams.get("tag");
    if (tag === null) return new Response("", { status: 404 });
    seen.push(tag);
    if (url.searchParams.has("held")) {
      const released = new AbortController();
      releases.set(tag, released);
      req.signal.addEventListener("abort", () => released.abort(), { once: true });
      await serverDelay(60_000, released.signal);
    } else await serverDelay(Number(url.searchParams.get("ms") ?? 0), req.signal);
    return new Response(`<!doctype html><title>slow ${tag}</title><p>page ${tag}</p>`, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    seen,
    url: (tag, ms) => `${origin}/slow?tag=${tag}&ms=${ms}`,
    held: (tag) => `${origin}/slow?tag=${tag}&held`,
    release: (tag) => releases.get(tag)?.abort(),
    close: () => server.shutdown(),
  };
}
