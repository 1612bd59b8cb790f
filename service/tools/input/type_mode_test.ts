import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { Operations, type SequenceCommand } from "../../../shared/browser_protocol.ts";
import { typeModeCommands, typeModeFrom } from "./type_mode.ts";

const READ: SequenceCommand[] = [
  { method: "Page.getFrameTree", params: {} },
  { method: "Runtime.evaluate", params: { expression: "1" } },
  { method: "Page.getFrameTree", params: {} },
];

Deno.test("the listener question travels beside a read, each list asking about an evaluation's object", () => {
  const commands = [...READ, ...typeModeCommands()];
  const sequence = Operations["cdp.sequence"].params.safeParse({ tab_id: 1, commands });
  assert(sequence.success, JSON.stringify(sequence.error?.issues));
  commands.forEach((command, index) => {
    if (command.objectIdFrom === undefined) return;
    const asked = commands[index - command.objectIdFrom];
    assertEquals(asked.method, "Runtime.evaluate");
    assertEquals(asked.params.returnByValue, false);
  });
});

Deno.test("a sequence refuses an object reference it cannot honour", () => {
  const parse = (sequence: Record<string, unknown>) =>
    Operations["cdp.sequence"].params.safeParse({ tab_id: 1, ...sequence }).success;
  const ask = { method: "DOMDebugger.getEventListeners", params: {}, objectIdFrom: 1 };
  assert(parse({ commands: [READ[1], ask] }));
  assert(parse({ pipeline: true, commands: [READ[1], ask] }));
  // Before the sequence's start.
  assert(!parse({ commands: [ask] }));
  assert(!parse({ commands: [READ[1], { ...ask, objectIdFrom: 2 }] }));
  assert(!parse({ commands: [READ[1], { ...ask, objectIdFrom: 0 }] }));
});

Deno.test("text is inserted only when both listener lists came back without a key event", () => {
  const evaluated = [{ result: { objectId: "1" } }, { result: { objectId: "2" } }];
  const mode = (document: unknown, window: unknown) =>
    typeModeFrom([...evaluated, document, window, {}] as Record<string, unknown>[]);
  assertEquals(mode({ listeners: [{ type: "input" }] }, { listeners: [] }), "insert");
  assertEquals(mode({ listeners: [{ type: "keydown" }] }, { listeners: [] }), "keys");
  assertEquals(mode({ listeners: [] }, { listeners: [{ type: "keyup" }] }), "keys");
  // No text target: the lists were not asked for.
  assertEquals(mode({}, {}), "keys");
  assertEquals(mode({ listeners: [] }, {}), "keys");
  assertEquals(typeModeFrom([]), "keys");
});
