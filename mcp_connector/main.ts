/**
 * `ghostlight-mcp-connector`: the stdio MCP server an MCP client spawns. Speaks exactly
 * `2025-11-25` and `2026-07-28`, picking one per process, and relays tool calls to the service
 * over the bridge. Owns request ids and rendering; never governance, tabs or browser frames.
 *
 * @module
 */

import { type InstancePaths, instancePathsFromEnv } from "../shared/instance.ts";
import { ErrorCode, MAX_LINE_BYTES, readMessages, StdioPeer } from "./jsonrpc.ts";
import { Session2025 } from "./mcp_2025_11_25.ts";
import { ServiceLink } from "./service_link.ts";

/** The connector's version. */
export const VERSION = "0.1.0";

function report(message: string): void {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(`ghostlight-mcp-connector: ${message}\n`));
  } catch {
    // stderr closed; nothing else to do.
  }
}

function parseArgs(args: string[]): { instance?: string } {
  const out: { instance?: string } = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--instance") out.instance = args[++i];
    else if (args[i].startsWith("--instance=")) out.instance = args[i].slice(11);
    else throw new Error(`unknown argument ${JSON.stringify(args[i])}; usage: [--instance NAME]`);
  }
  return out;
}

/** Serves one client on stdin/stdout until stdin closes. */
export async function serve(paths: InstancePaths): Promise<void> {
  const peer = new StdioPeer(Deno.stdout.writable);
  const link = new ServiceLink(paths, { name: "unknown client", version: "" });
  const server = { name: paths.mcpServerName, version: VERSION };
  let session: Session2025 | null = null;
  for await (const message of readMessages(Deno.stdin.readable)) {
    switch (message.kind) {
      case "oversized":
        await peer.error(
          null,
          ErrorCode.invalidRequest,
          `Message of ${message.bytes} bytes is over the ${MAX_LINE_BYTES}-byte limit`,
        );
        continue;
      case "invalid":
        await peer.error(message.id, message.code, message.message);
        continue;
      case "response":
        continue;
      case "notification":
        session?.handleNotification(message);
        continue;
      case "request":
        if (session === null) {
          if (message.method !== "initialize") {
            await peer.error(
              message.id,
              ErrorCode.invalidRequest,
              "Send initialize first (protocol version 2025-11-25)",
            );
            continue;
          }
          session = new Session2025(peer, link, server);
        }
        session.handleRequest(message);
    }
  }
  await session?.end();
  link.close();
  await peer.close();
}

if (import.meta.main) {
  let paths: InstancePaths;
  try {
    paths = instancePathsFromEnv(parseArgs(Deno.args).instance);
  } catch (error) {
    report((error as Error).message);
    Deno.exit(2);
  }
  await serve(paths);
  Deno.exit(0);
}
