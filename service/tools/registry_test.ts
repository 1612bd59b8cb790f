import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { BrowserError } from "../browser/mod.ts";
import type { ToolContext } from "./core/context.ts";
import { failureOutcome } from "./core/errors.ts";
import { readOnly } from "./registry.ts";

Deno.test("a read-only tool's browser timeout says nothing changed", async () => {
  const timedOut = readOnly(() => {
    throw new BrowserError("timeout", "the browser did not finish cdp in 30000 ms");
  });
  const outcome = await timedOut({}, {} as ToolContext).then(
    () => null,
    (error) => failureOutcome(error),
  );
  assertEquals(outcome?.kind, "tool_failure");
  assertMatch(outcome?.kind === "tool_failure" ? outcome.message : "", /nothing changed/);
  // Tools that act keep "it may have happened".
  assertMatch(
    JSON.stringify(failureOutcome(new BrowserError("timeout", "slow"))),
    /may still have happened/,
  );
});
