/**
 * The order in which a `cdp.sequence`'s commands go out (the protocol's note on `cdp.sequence`
 * and `SequenceCommand`): one after the other's reply, or pipelined; a command naming an earlier
 * reply's object (0205) or values (`sendIf`, `paramsFrom`, 0239) waits for the replies it names,
 * and is not sent when they do not hold what it needs; one with `afterReplies` waits for every
 * earlier reply and answers its own failure (decision 0212). Sending itself is the caller's.
 *
 * @module
 */

import {
  namedReplies,
  type ReplyTest,
  type SequenceCommand,
} from "../../shared/browser_protocol.ts";

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
  lead?: Lead,
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
    // Whether the lead was handed on: a command after it that waits for earlier replies is
    // sent only then.
    let handedOn: Promise<boolean> | undefined;
    const push = (outcome: Promise<SendOutcome>) => {
      sent.push(outcome);
      if (lead && sent.length === lead.count) handedOn = sendLead(sent, lead);
    };
    for (const command of commands) {
      const named = namedReplies(command);
      if (named.length === 0 && !command.afterReplies) {
        push(send(command));
        continue;
      }
      const earlier = command.afterReplies ? await Promise.all(sent) : [];
      if (earlier.some((outcome) => !outcome.ok)) {
        // The sequence fails with the earlier failure; this command is not sent.
        push(Promise.resolve(NOT_SENT));
        continue;
      }
      const at = sent.length;
      const replies = new Map<number, Record<string, unknown> | undefined>();
      for (const back of named) {
        const outcome = await sent[at - back];
        replies.set(back, outcome.ok ? outcome.result : undefined);
      }
      const resolved = handedOn && !await handedOn
        ? null
        : resolve(command, (back) => replies.get(back));
      push(
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
  // Once the lead was withheld, nothing after it is sent.
  let withheld = false;
  for (const command of commands) {
    const at = results.length;
    const resolved = withheld ? null : resolve(command, (back) => results[at - back]);
    if (resolved === null) {
      results.push({});
      if (results.length === lead?.count && !lead.send(results.slice())) withheld = true;
      continue;
    }
    const outcome = await (command.afterReplies ? sendAfter(resolved) : send(resolved));
    if (!outcome.ok) throw outcome.error;
    results.push(outcome.result);
    if (results.length === lead?.count && !lead.send(results.slice())) withheld = true;
  }
  return results;
}

/**
 * Where the replies of a sequence's first `count` commands go as soon as they are all in, before
 * the rest (decision 0239): the commands after them may be held by the browser for long.
 * `send` answers false when it withheld them (a dialog the service heard of before them held
 * the lookup, and the service answered without it): no command after them that waits for an
 * earlier reply is then sent.
 */
export interface Lead {
  count: number;
  send(results: Record<string, unknown>[]): boolean;
}

/**
 * Hands the lead's replies on once they are all in, unless one of them failed; whether they
 * were handed on.
 */
async function sendLead(sent: Promise<SendOutcome>[], lead: Lead): Promise<boolean> {
  const results: Record<string, unknown>[] = [];
  for (const outcome of await Promise.all(sent.slice(0, lead.count))) {
    if (!outcome.ok) return false;
    results.push(outcome.result);
  }
  return lead.send(results);
}

/**
 * The command as sent, with what it takes from the earlier replies it names (`reply(n)`: the reply
 * n commands back) put in its params; null when one of them does not hold what it needs, and the
 * command is then not sent: no object for `objectIdFrom` (the evaluation answered a primitive or
 * threw), a `sendIf` test that fails, a `paramsFrom` value that is missing or not a number,
 * string or boolean, or whose path into the params crosses something other than an object.
 */
function resolve(
  command: SequenceCommand,
  reply: (back: number) => Record<string, unknown> | undefined,
): Sendable | null {
  const params = { ...command.params };
  if (command.objectIdFrom !== undefined) {
    const named = reply(command.objectIdFrom);
    // An evaluation that threw holds the exception as its result: that is not the object meant.
    const objectId = named?.exceptionDetails === undefined
      ? (named?.result as { objectId?: unknown } | undefined)?.objectId
      : undefined;
    if (typeof objectId !== "string") return null;
    params.objectId = objectId;
  }
  const holds = (test: ReplyTest) => {
    const value = valueAt(reply(test.reply), test.path);
    return "equals" in test ? value === test.equals : lacks(value, test.lacks);
  };
  if (command.sendIf && !command.sendIf.every(holds)) return null;
  for (const take of command.paramsFrom ?? []) {
    const value = valueAt(reply(take.reply), take.path);
    const usable = typeof value === "string" || typeof value === "boolean" ||
      (typeof value === "number" && Number.isFinite(value));
    if (!usable || !place(params, take.param.split("."), value)) return null;
  }
  return { method: command.method, params };
}

/**
 * Puts `value` at `path` in `params`, copying each object on the way (the command's own params
 * stay as they were) and making those that are missing; false when a step holds something other
 * than a plain object.
 */
function place(params: Record<string, unknown>, path: string[], value: unknown): boolean {
  let at = params;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (next !== undefined && (typeof next !== "object" || next === null || Array.isArray(next))) {
      return false;
    }
    const copy = { ...(next as Record<string, unknown> | undefined) };
    at[key] = copy;
    at = copy;
  }
  at[path[path.length - 1]] = value;
  return true;
}

/** Whether `value` is a list none of whose entries has its own `field` among `values`. */
function lacks(value: unknown, test: { field: string; values: string[] }): boolean {
  if (!Array.isArray(value)) return false;
  return value.every((entry) =>
    typeof entry !== "object" || entry === null || !Object.hasOwn(entry, test.field) ||
    !test.values.includes(String((entry as Record<string, unknown>)[test.field]))
  );
}

/** The value at `path` in `reply`, if every step is an own property of an object on the way. */
function valueAt(reply: Record<string, unknown> | undefined, path: readonly string[]): unknown {
  let value: unknown = reply;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
