/**
 * The order in which a `cdp.sequence`'s commands go out (the protocol's note on `cdp.sequence`
 * and `SequenceCommand`): one after the other's reply, or pipelined; a command naming an earlier
 * reply's object waits for that reply (decision 0205); one with `afterReplies` waits for every
 * earlier reply and answers its own failure (decision 0212). Sending itself is the caller's.
 *
 * @module
 */

import type { SequenceCommand } from "../../shared/browser_protocol.ts";

/** A command as sent to the browser. */
export interface Sendable {
  method: string;
  params: Record<string, unknown>;
}

/** How one command ended. */
export type SendOutcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: Error };

const NOT_SENT: SendOutcome = { ok: true, result: {} };

/**
 * Sends `commands` through `send` and answers their replies in order; throws the first failure
 * of a command without `afterReplies`.
 */
export async function runSequence(
  commands: readonly SequenceCommand[],
  pipeline: boolean,
  send: (command: Sendable) => Promise<SendOutcome>,
): Promise<Record<string, unknown>[]> {
  // A command sent after every earlier reply answers its own failure: the commands before it
  // have run, and the caller must still learn that.
  const sendAfter = (command: Sendable) =>
    send(command).then((outcome): SendOutcome =>
      outcome.ok ? outcome : { ok: true, result: { failed: outcome.error.message } }
    );
  const results: Record<string, unknown>[] = [];
  if (pipeline) {
    // Each command goes out without waiting for the one before, except one that names an
    // earlier reply (it waits for that reply) or waits for every earlier reply; the commands
    // after it go out after it.
    const sent: Promise<SendOutcome>[] = [];
    for (const command of commands) {
      if (command.objectIdFrom === undefined && !command.afterReplies) {
        sent.push(send(command));
        continue;
      }
      const earlier = command.afterReplies ? await Promise.all(sent) : [];
      if (earlier.some((outcome) => !outcome.ok)) {
        // The sequence fails with the earlier failure; this command is not sent.
        sent.push(Promise.resolve(NOT_SENT));
        continue;
      }
      let resolved: Sendable | null = command;
      if (command.objectIdFrom !== undefined) {
        const named = await sent[sent.length - command.objectIdFrom];
        resolved = withObjectId(command, named.ok ? named.result : undefined);
      }
      sent.push(
        resolved === null
          ? Promise.resolve(NOT_SENT)
          : command.afterReplies
          ? sendAfter(resolved)
          : send(resolved),
      );
    }
    for (const outcome of await Promise.all(sent)) {
      if (!outcome.ok) throw outcome.error;
      results.push(outcome.result);
    }
    return results;
  }
  for (const command of commands) {
    const resolved = command.objectIdFrom === undefined
      ? command
      : withObjectId(command, results[results.length - command.objectIdFrom]);
    if (resolved === null) {
      results.push({});
      continue;
    }
    const outcome = await (command.afterReplies ? sendAfter(resolved) : send(resolved));
    if (!outcome.ok) throw outcome.error;
    results.push(outcome.result);
  }
  return results;
}

/**
 * The command as sent with the object the earlier `reply` it names holds put in its params; null
 * when that reply holds none or its evaluation threw (the command is then not sent).
 */
function withObjectId(
  command: SequenceCommand,
  reply: Record<string, unknown> | undefined,
): Sendable | null {
  // An evaluation that threw holds the exception as its result: that is not the object meant.
  const objectId = reply?.exceptionDetails === undefined
    ? (reply?.result as { objectId?: unknown } | undefined)?.objectId
    : undefined;
  return typeof objectId === "string"
    ? { method: command.method, params: { ...command.params, objectId } }
    : null;
}
