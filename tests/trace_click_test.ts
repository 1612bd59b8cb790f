/**
 * Issue 27's measure of the house, held: a ref click, from the MCP `tools/call` to the extension's
 * `Input.dispatchMouseEvent` and its receipt, runs through few files of `service/tools/`, counted
 * by `scripts/trace_click.ts` (V8 coverage of a click session against a session of as many calls
 * that send nothing to the page; decision 0380).
 */

import { traceClick } from "../scripts/trace_click.ts";
import { assert } from "./support/assert.ts";

/** The files of `service/tools/` a ref click runs through (16 before decision 0380). */
const TOOLS_FILES_AT_MOST = 13;

Deno.test("a ref click runs through at most 13 files of service/tools/", async () => {
  const files = (await traceClick()).map(({ file }) => file);
  const tools = files.filter((file) => file.startsWith("service/tools/"));
  assert(
    tools.length <= TOOLS_FILES_AT_MOST,
    `a ref click ran through ${tools.length} files of service/tools/:\n${tools.join("\n")}`,
  );
  // The preparation, the watches and the dialog race are steps of the click's flow, not files.
  for (const folded of ["input/prepare.ts", "input/navigation_watch.ts", "input/dialogs.ts"]) {
    assert(!tools.includes(`service/tools/${folded}`), `${folded} is on the click's way`);
  }
  // What the trace found is the click's: its program, its executor and its receipt.
  for (
    const step of ["handlers/computer.ts", "input/act.ts", "input/send.ts", "input/receipt.ts"]
  ) {
    assert(tools.includes(`service/tools/${step}`), `${step} is missing:\n${files.join("\n")}`);
  }
});
