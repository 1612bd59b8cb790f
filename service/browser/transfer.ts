/**
 * Sending byte payloads to a browser: each payload goes as one transfer of verified chunks
 * (`shared/transfer.ts`), then one CDP command uses them all at once, so the page gets every
 * payload or none.
 *
 * @module
 */

import type { OperationParams } from "../../shared/browser_protocol.ts";
import { transferChunks, transferPlaceholder } from "../../shared/transfer.ts";
import type { BrowserLink } from "./browser_link.ts";

/** How long the extension keeps a transfer that is not used: sending takes well under this. */
const TRANSFER_TTL_MS = 60_000;
/** How long a discard may take: it is a courtesy, the TTL frees the bytes anyway. */
const DISCARD_TIMEOUT_MS = 5_000;

/** A payload on its way: its id and the placeholder a command carries in its place. */
export interface SentTransfer {
  id: string;
  placeholder: string;
}

/**
 * Sends each payload to the browser as a transfer, chunk by chunk, in order. On a failure the
 * transfers already sent are discarded (they would expire anyway).
 */
export async function sendTransfers(
  link: BrowserLink,
  payloads: Uint8Array[],
  signal?: AbortSignal,
): Promise<SentTransfer[]> {
  const sent: SentTransfer[] = [];
  try {
    for (const payload of payloads) {
      const id = crypto.randomUUID();
      sent.push({ id, placeholder: transferPlaceholder(id) });
      for (const chunk of await transferChunks(id, payload, TRANSFER_TTL_MS)) {
        signal?.throwIfAborted();
        await link.call("transfer.chunk", chunk);
      }
    }
    return sent;
  } catch (error) {
    discard(link, sent);
    throw error;
  }
}

/** Asks the browser to forget transfers, without waiting: they expire by themselves anyway. */
function discard(link: BrowserLink, sent: SentTransfer[]): void {
  for (const transfer of sent) {
    link.call("transfer.discard", { transfer_id: transfer.id }, { timeoutMs: DISCARD_TIMEOUT_MS })
      .catch(() => {});
  }
}

/**
 * Sends the payloads, then the CDP command `build` makes from their placeholders; the extension
 * puts the verified bytes in place and sends the command with all of them or refuses it whole.
 */
export async function withTransfers(
  link: BrowserLink,
  payloads: Uint8Array[],
  build: (placeholders: string[]) => Omit<OperationParams<"cdp.with_transfers">, "transfers">,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Record<string, unknown>> {
  const sent = await sendTransfers(link, payloads, options.signal);
  const command = build(sent.map((transfer) => transfer.placeholder));
  try {
    return await link.call(
      "cdp.with_transfers",
      { ...command, transfers: sent.map((transfer) => transfer.id) },
      { timeoutMs: options.timeoutMs },
    );
  } catch (error) {
    // A command refused before it ran (a dialog is open) leaves its transfers unused; used ones
    // are already gone, and discarding them again is harmless.
    discard(link, sent);
    throw error;
  }
}
