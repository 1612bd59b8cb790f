/**
 * The agent host's side of a WebSocket as the message streams the ACP SDK connects over: each
 * text frame one message in, each message out one frame while the socket is open.
 *
 * @module
 */

import type { AnyMessage } from "@agentclientprotocol/sdk/unstable";

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
