import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { compile, type PageProgram, program, ProgramError } from "./program.ts";

/** The message `compile` throws for `declared`, which must be a ProgramError. */
function refusal(declared: PageProgram<string, string>): string {
  try {
    compile(declared);
  } catch (error) {
    assert(error instanceof ProgramError, String(error));
    return error.message;
  }
  throw new Error("compiled");
}

function assertRefused(declared: PageProgram<string, string>, words: string) {
  const message = refusal(declared);
  assert(message.includes(words), message);
}

const evaluate = (expression: string) => ({
  method: "Runtime.evaluate",
  params: { expression, returnByValue: true },
});

Deno.test("a page program's names become reply offsets counted back from each step", () => {
  const click = program()
    .step("lookup", () => evaluate("find()"))
    .step("look", () => ({ method: "Page.getFrameTree", params: {} }))
    .lead()
    .condition("ready", (at) => [
      { value: at("lookup", "result", "value", "visible"), equals: true },
      { value: at("look", "frameTree", "frame", "id"), equals: "F" },
    ])
    .step("press", (at) => ({
      method: "Input.dispatchMouseEvent",
      params: {
        type: "mousePressed",
        x: at("lookup", "result", "value", "point", "x"),
        y: at("lookup", "result", "value", "point", "y"),
        button: "left",
      },
      when: ["ready"],
    }))
    .step("settle", () => ({ ...evaluate("settle()"), when: ["ready"], afterAll: true }));
  const compiled = compile(click);
  assertEquals(compiled.lead, 2);
  assertEquals(compiled.indexOf("settle"), 3);
  assertEquals(compiled.commands[2], {
    method: "Input.dispatchMouseEvent",
    params: { type: "mousePressed", button: "left" },
    sendIf: [
      { reply: 2, path: ["result", "value", "visible"], equals: true },
      { reply: 1, path: ["frameTree", "frame", "id"], equals: "F" },
    ],
    paramsFrom: [
      { reply: 2, path: ["result", "value", "point", "x"], param: "x" },
      { reply: 2, path: ["result", "value", "point", "y"], param: "y" },
    ],
  });
  // The settle read is one further on: every offset grows by one.
  assertEquals(compiled.commands[3].sendIf?.map((test) => test.reply), [3, 2]);
  assertEquals(compiled.commands[3].afterReplies, true);
  assertEquals(compiled.reply("press", [{}, {}, { pressed: 1 }, {}]), { pressed: 1 });
});

Deno.test("a page program takes an object by name and nests a value in a param's field", () => {
  const compiled = compile(
    program()
      .step("doc", () => evaluate("document"))
      .each("ask", () => [
        { method: "DOMDebugger.getEventListeners", params: {}, objectOf: "doc" },
        { method: "DOMDebugger.getEventListeners", params: {}, objectOf: "doc" },
      ])
      .step("shot", (at) => ({
        method: "Page.captureScreenshot",
        params: { clip: { x: at("doc", "result", "value", "x"), scale: 1 } },
      })),
  );
  assertEquals(compiled.commands.map((command) => command.objectIdFrom), [
    undefined,
    1,
    2,
    undefined,
  ]);
  assertEquals(compiled.commands[3].params, { clip: { scale: 1 } });
  assertEquals(compiled.commands[3].paramsFrom, [
    { reply: 3, path: ["result", "value", "x"], param: "clip.x" },
  ]);
});

Deno.test("a name that is not an earlier step is a type error, and thrown when built at run time", () => {
  const later = program()
    // @ts-expect-error: "press" is not declared before this step.
    .step("lookup", (at) => ({ ...evaluate("x"), params: { x: at("press", "x") } }))
    .step("press", () => evaluate("y"));
  assertRefused(later, `takes a value of "press"`);

  const made = "nowhere" as string;
  const unknown = program()
    .step("lookup", () => evaluate("x"))
    .step("press", () => ({ ...evaluate("y"), objectOf: made as "lookup" }));
  assertRefused(unknown, `"nowhere", which is not an earlier step`);

  const untested = program()
    .step("lookup", () => evaluate("x"))
    // @ts-expect-error: no condition "ready" was declared.
    .step("press", () => ({ ...evaluate("y"), when: ["ready"] }));
  assertRefused(untested, `unknown condition "ready"`);

  const twice = program().step("a", () => evaluate("x"))
    // @ts-expect-error: a step's name is declared once.
    .step("a", () => evaluate("y"));
  assertRefused(twice, "declared twice");
});

Deno.test("a step naming more reply values than the extension takes is refused when built", () => {
  const many = program()
    .step("a", () => evaluate("x"))
    .condition(
      "all",
      (at) => Array.from({ length: 9 }, (_, i) => ({ value: at("a", String(i)), equals: true })),
    )
    .step("b", () => ({ ...evaluate("y"), when: ["all"] }));
  assertRefused(many, "more than 8 reply values");
});
