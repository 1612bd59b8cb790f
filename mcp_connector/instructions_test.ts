import { assertMatch } from "../tests/support/assert.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { LINK_BROKEN } from "./service_link.ts";

Deno.test("the instructions tell a model what to do when its connection closes", () => {
  assertMatch(INSTRUCTIONS, /If this MCP connection closes while calls are under way/);
  assertMatch(INSTRUCTIONS, /calls still waiting never ran/);
  assertMatch(INSTRUCTIONS, /stops after its current step/);
  assertMatch(INSTRUCTIONS, /pass the same workspaceId/);
});

Deno.test("a call cut off by a broken link says what ran and what to do next", () => {
  assertMatch(LINK_BROKEN.next_step, /a call that was still waiting did not run/);
  assertMatch(LINK_BROKEN.next_step, /call tabs_context_mcp and look at the page before retrying/);
});
