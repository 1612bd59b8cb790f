/**
 * The contract with the page runtime holds at the type level (decision 0320): a call names a
 * method the runtime has, with the arguments it takes, and its answer has the runtime's type.
 * Each `@ts-expect-error` below fails the type check of this file if the line it marks ever
 * compiles, so loosening the call helper (back to a bare string, or `unknown[]` arguments) fails
 * this test.
 */

import { assert, assertEquals } from "../../../tests/support/assert.ts";
import type { PageMethods, Readable, ScrollProbe, Snapshot } from "../page_runtime/contract.ts";
import {
  answerPath,
  asJsonText,
  elementCall,
  mainWorldCall,
  noRuntime,
  parseJson,
  type RuntimeAnswer,
  runtimeArguments,
  type RuntimeCall,
  runtimeCall,
  type RuntimeMethod,
  valueOf,
  vouchedCall,
} from "./in_page.ts";

/** True only when `A` and `B` are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

function holds<T extends true>(): T | undefined {
  return undefined;
}

Deno.test("a runtime call is checked for its method, its arguments and its answer", () => {
  const read = runtimeCall("readable", true, 100);
  holds<Same<typeof read, RuntimeCall<Readable>>>();
  holds<Same<RuntimeAnswer<"fill">, Awaited<ReturnType<PageMethods["fill"]>>>>();
  assertEquals(read, "globalThis.__ghostlight?.readable?.(true, 100)");

  // @ts-expect-error a method the runtime does not have
  runtimeCall("readText", true, 100);
  // @ts-expect-error an argument of the wrong type
  runtimeCall("readable", "true", 100);
  // @ts-expect-error an argument missing
  runtimeCall("readable", true);
  // @ts-expect-error the token is a value, not a method
  runtimeCall("token");

  // The answer's type comes with the call: reading it as another type does not compile.
  const reply = {
    result: { value: { url: "u", title: "t", text: "x", length: 1, scope: "", whole: 1 } },
  };
  const value: Readable = valueOf(read, reply);
  assertEquals(value.text, "x");
  // @ts-expect-error a snapshot is not what `readable` answers
  const _wrong: Snapshot = valueOf(read, reply);
});

Deno.test("element calls, vouched calls and JSON text keep the runtime's types", () => {
  assertEquals(elementCall("describe", 7), "globalThis.__ghostlight?.describe?.(7)");
  assertEquals(elementCall("describe", 7, false), "globalThis.__ghostlight?.describe?.(7, false)");
  // @ts-expect-error `box` takes the element's number alone
  elementCall("box", 7, true);
  // @ts-expect-error `framesShown` takes no element
  elementCall("framesShown", 7);

  const vouched = vouchedCall(runtimeCall("framesShown"));
  holds<
    Same<
      typeof vouched,
      RuntimeCall<{ current: boolean; value: ReturnType<PageMethods["framesShown"]> }>
    >
  >();
  assertEquals(
    vouched,
    "globalThis.__ghostlight?.vouch?.(globalThis.__ghostlight?.framesShown?.())",
  );

  const walk = asJsonText(runtimeCall("snapshot", { filter: "all" }));
  assertEquals(walk, 'JSON.stringify(globalThis.__ghostlight?.snapshot?.({"filter":"all"}))');
  const parsed: Snapshot = parseJson(valueOf(walk, { result: { value: '{"gone":true}' } }));
  assertEquals(parsed, { gone: true });

  assertEquals(runtimeArguments("putFiles", null, { x: 1, y: 2 }, [], "drop"), [
    { value: null },
    { value: { x: 1, y: 2 } },
    { value: [] },
    { value: "drop" },
  ]);
  // @ts-expect-error a mode `putFiles` does not know
  runtimeArguments("putFiles", null, null, [], "paste");
});

Deno.test("a world without the runtime is told by its reply's type, not by an error's words", () => {
  // What CDP answers for `globalThis.__ghostlight?.readable?.(...)` where no runtime is installed.
  assertEquals(noRuntime({ result: { type: "undefined" } }), true);
  assertEquals(noRuntime({ result: { type: "object", subtype: "null", value: null } }), false);
  assertEquals(noRuntime({ result: { type: "string", value: "" } }), false);
  // No method of the contract answers undefined, so the reply's type cannot be mistaken.
  holds<Same<Extract<RuntimeAnswer<RuntimeMethod>, undefined>, never>>();
});

Deno.test("a main-world call is checked against the contract too", () => {
  const probe = mainWorldCall("scrollProbe", { x: 1, y: 2 });
  holds<Same<typeof probe, RuntimeCall<ScrollProbe>>>();
  assert(probe.endsWith(')({"x":1,"y":2})'));
  // @ts-expect-error a function the main world does not have
  mainWorldCall("scrollTo", null);
  // @ts-expect-error `windowSizeOnceMoved` takes where the window was and a bound
  mainWorldCall("windowSizeOnceMoved", 5);
});

Deno.test("a page program's test of a runtime answer names a field the contract has", () => {
  assertEquals(answerPath("prepareAction", "before", "hidden"), [
    "result",
    "value",
    "before",
    "hidden",
  ]);
  assertEquals(answerPath("prepareAction", "point"), ["result", "value", "point"]);
  // @ts-expect-error `prepareAction` answers no `hiddenNow`
  answerPath("prepareAction", "before", "hiddenNow");
  // @ts-expect-error `observeBefore` answers `hidden` at its top, not under `before`
  answerPath("observeBefore", "before", "hidden");
});
