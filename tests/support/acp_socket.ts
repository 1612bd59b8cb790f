/**
 * The tests' ACP agent hosts: their side of a WebSocket as the message streams the ACP SDK
 * connects over (each text frame one message in, each message out one frame while the socket is
 * open), and the tool results they read from MCP-over-ACP answers.
 *
 * @module
 */

import type { AnyMessage, McpOutcome } from "@agentclientprotocol/sdk/unstable";
import { assert } from "./assert.ts";

/** A message stream over the agent host's side of the WebSocket, for the SDK. */
export function socketStream(socket: WebSocket): {
  readable: ReadableStream<AnyMessage>;
  writable: WritableStream<AnyMessage>;
} {
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      socket.onmessage = (event) => controller.enqueue(JSON.parse(event.data as string));
      socket.onclose = () => {
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      };
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    },
  });
  return { readable, writable };
}

/** A tool's result as an agent host reads it from an MCP-over-ACP answer. */
export type ToolResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** The result an MCP-over-ACP call answered; fails the test on an error answer. */
export function resultOf(outcome: McpOutcome): ToolResult {
  assert("result" in outcome, `an MCP result, not ${JSON.stringify(outcome).slice(0, 500)}`);
  return outcome.result as ToolResult;
}

/** A tool result's text blocks, joined by lines. */
export function textOf(result: ToolResult): string {
  return result.content.filter((block) => block.type === "text").map((block) => block.text)
    .join("\n");
}
