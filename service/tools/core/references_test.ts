import { assertEquals, assertRejects } from "../../../tests/support/assert.ts";
import {
  isReference,
  referencePaths,
  ReferenceProblem,
  resolveReferences,
  type StepResult,
  withoutReferences,
} from "./references.ts";

const RESULTS: StepResult[] = [
  { ok: true, text: "Result: 7G-42", structured: { result: "7G-42", tabId: 5 } },
  {
    ok: true,
    text: "2 matches",
    structured: { matches: [{ ref: "ref_3", name: "Code" }, { ref: "ref_9" }] },
  },
  { ok: false, text: "failed" },
];

Deno.test("a reference takes the value at its path in an earlier result", () => {
  assertEquals(
    resolveReferences(
      {
        tabId: "$1.tabId",
        value: "$1.result",
        ref: "$prev.matches.0.ref",
        other: "$2.matches[1].ref",
        text: "$1.text",
        nested: { target: { ref: "$2.matches.0.ref" } },
        list: ["$1.result", "plain"],
      },
      RESULTS,
      3,
    ),
    {
      tabId: 5,
      value: "7G-42",
      ref: "ref_3",
      other: "ref_9",
      text: "Result: 7G-42",
      nested: { target: { ref: "ref_3" } },
      list: ["7G-42", "plain"],
    },
  );
});

Deno.test("only whole strings are references", () => {
  assertEquals(isReference("costs $5.00"), false);
  assertEquals(isReference("$5.00"), true);
  assertEquals(resolveReferences({ text: "pay $1.result now" }, RESULTS, 2), {
    text: "pay $1.result now",
  });
});

Deno.test("a reference to a later, failed or missing value says why", async () => {
  const resolving = (args: Record<string, unknown>, current: number) => () =>
    Promise.resolve().then(() => resolveReferences(args, RESULTS, current));
  const problem = await assertRejects(resolving({ v: "$2.result" }, 2), /before this one/);
  assertEquals(problem instanceof ReferenceProblem, true);
  await assertRejects(resolving({ v: "$3.x" }, 4), /step 3, which failed/);
  await assertRejects(
    resolving({ v: "$1.value" }, 2),
    /\$1 has no "value" \(it has keys result, tabId\)/,
  );
  // Names every object (or array) has are not in a result: no Object or toString slips through.
  for (const path of ["constructor", "__proto__", "toString", "matches.constructor"]) {
    const step = path.startsWith("matches") ? 2 : 1;
    await assertRejects(
      resolving({ v: `$${step}.${path}` }, 3),
      new RegExp(`has no "${path.split(".").pop()}`),
    );
  }
  assertEquals(resolveReferences({ v: "$2.matches.length" }, RESULTS, 3), { v: 2 });
});

Deno.test("the fields holding references are found and left out for a check", () => {
  const args = { tabId: 1, target: { ref: "$1.ref" }, value: "$prev.result", text: "x" };
  assertEquals(referencePaths(args), ["target.ref", "value"]);
  assertEquals(withoutReferences(args), { tabId: 1, target: {}, text: "x" });
});
