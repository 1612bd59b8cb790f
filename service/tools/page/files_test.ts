import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { MechanismErrorKind } from "../../../shared/browser_protocol.ts";
import { BrowserError } from "../../browser/mod.ts";
import { ToolError } from "../core/errors.ts";
import { putFailure } from "./files.ts";

const AT_POINT = { point: { x: 10, y: 10 } };

Deno.test("a refused transfer is known by its kind, whatever its message says", () => {
  const failure = putFailure(
    new BrowserError("transfer_refused", "the browser holds too many payloads"),
    AT_POINT,
  );
  assert(failure instanceof ToolError, String(failure));
  assertEquals(failure.kind, "not_dispatched");
});

Deno.test("a message that speaks of a transfer without the kind is not taken for a refusal", () => {
  const error = new BrowserError(
    "invalid_params",
    "transfer 1 is unknown, expired or already used",
  );
  assertEquals(putFailure(error, AT_POINT), error);
});

Deno.test("the wire carries a transfer refusal as its own kind", () => {
  assertEquals(MechanismErrorKind.parse("transfer_refused"), "transfer_refused");
});
