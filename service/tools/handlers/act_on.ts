/**
 * `act_on`: one target (by ref, by a plain-language query, or by role and name), one action on
 * it, and optionally a wait for what should follow. The target is found with find's ranking;
 * when several elements match about equally well, nothing is done and up to 5 candidates come
 * back instead of a guess. Actions go through the same code as `computer` (clicks, hover,
 * scroll_to) and `form_input` (set_value), so their receipts are the same.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { ToolError } from "../core/errors.ts";
import { fence, originOf } from "../core/safe_text.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { actedOutcome, perform } from "../input/act.ts";
import { scrollToRef } from "../input/scroll.ts";
import { setFieldValue } from "../input/set_value.ts";
import { unreadNote } from "../page/collect.ts";
import { asMatch, locate, type Located } from "../page/locate.ts";
import { type Condition, describeCondition, notAskedNote, waitForCondition } from "../page/wait.ts";

/** Most candidates shown for an ambiguous target. */
const MAX_CANDIDATES = 5;
/** Candidates scoring within this of the best are as likely to be the one meant. */
const AMBIGUITY_MARGIN = 0.5;
/** How long an `expect` waits when it names no time. */
const DEFAULT_EXPECT_MS = 5_000;

type TargetSpec = { ref?: string; query?: string; name?: string; role?: string };

/** The element a call's target resolved to, and how surely. */
interface Resolved {
  ref: string;
  assurance: "ref" | "semantic";
  /** For a searched target: how it was described, and the runners-up. */
  described?: string;
  alternatives?: ReturnType<typeof asMatch>[];
}

function describeTarget(spec: TargetSpec): string {
  const words = [spec.query, spec.name].filter(Boolean).join(" ");
  return spec.role ? `${spec.role}${words ? ` "${words}"` : ""}` : `"${words}"`;
}

/** The candidates the user could mean, as lines for the model (names fenced by the caller). */
function candidateLines(matches: ReturnType<typeof asMatch>[]): string {
  return matches.map((match) =>
    `${match.role} ${JSON.stringify(match.name)} [${match.ref}] at (${match.x},${match.y})` +
    (match.visible ? "" : " hidden")
  ).join("\n");
}

/** Finds a searched target; refuses when nothing or several things match. */
async function search(context: ToolContext, target: TabTarget, spec: TargetSpec) {
  const query = [spec.query, spec.name].filter(Boolean).join(" ").trim();
  const { outline, located, scale } = await locate(context, target, { query, role: spec.role });
  const described = describeTarget(spec);
  const matches = located.slice(0, MAX_CANDIDATES).map((m, i) => asMatch(m, i, scale));
  if (located.length === 0) {
    // A match inside a frame the read left out could not be found: say which were left out.
    const unread = unreadNote(outline.unreadFrames);
    throw new ToolError(
      "tool_failure",
      `Nothing on tab ${target.tabId} matches ${described}; nothing was done.` +
        (unread ? ` ${unread}` : ""),
      "Try the words the page shows (find lists what matches), or read_page with filter " +
        '"interactive".',
    );
  }
  const best = located[0];
  const rivals = located.filter((other: Located) =>
    other.box.visible && other.score >= best.score - AMBIGUITY_MARGIN
  );
  if (rivals.length > 1) {
    const shown = rivals.slice(0, MAX_CANDIDATES).map((m, i) => asMatch(m, i, scale));
    throw new ToolError(
      "tool_failure",
      `${described} matches ${rivals.length} elements about equally well, so nothing was ` +
        `done. Candidates, best first:\n${
          fence(context.workspace, originOf(outline.url), candidateLines(shown))
        }`,
      "Call act_on again with the ref of the one you mean as target, or describe it more " +
        "exactly.",
    );
  }
  return { ref: best.ref, described, alternatives: matches.slice(1) };
}

async function resolveTarget(
  context: ToolContext,
  target: TabTarget,
  spec: TargetSpec,
): Promise<Resolved> {
  if (spec.ref) return { ref: spec.ref, assurance: "ref" };
  if (!spec.query && !spec.name && !spec.role) {
    throw new ToolError(
      "tool_failure",
      "target names nothing: give it a ref, a query, or a role and a name.",
      `Call {"tabId": ${target.tabId}, "target": {"query": "Sign in button"}, ` +
        '"action": "left_click"}.',
    );
  }
  const found = await search(context, target, spec);
  return { ...found, assurance: "semantic" };
}

/** The clicks act_on takes, as the input layer's click intents take them. */
const CLICKS: Record<string, { button: "left" | "right"; clicks: number }> = {
  left_click: { button: "left", clicks: 1 },
  right_click: { button: "right", clicks: 1 },
  double_click: { button: "left", clicks: 2 },
};

/** Does the action on the resolved ref, through the input layer, as computer and form_input do. */
async function act(
  context: ToolContext,
  target: TabTarget,
  call: { action: string; ref: string; value?: unknown },
): Promise<Outcome> {
  const { action, ref } = call;
  if (action === "set_value") {
    if (call.value === undefined) {
      throw new ToolError(
        "tool_failure",
        '"value" is required for set_value.',
        `Call {"tabId": ${target.tabId}, "target": {"ref": "${call.ref}"}, "action": ` +
          '"set_value", "value": "hello"}.',
      );
    }
    const value = call.value as string | boolean | number;
    return await setFieldValue({ tabId: target.tabId, ref, value }, context);
  }
  if (action === "scroll_to") return await scrollToRef(context, target, ref);
  const at = { ref };
  const intent = Object.hasOwn(CLICKS, action)
    ? { kind: "click" as const, action, at, ...CLICKS[action] }
    : { kind: "hover" as const, at };
  return actedOutcome(context, await perform(context, target, intent));
}

/** The expected condition of a call, if it has one. */
function expectationOf(args: Record<string, unknown>): (Condition & { ms: number }) | null {
  const expect = args.expect as
    | { selector?: string; text?: string; state?: Condition["state"]; timeout_ms?: number }
    | undefined;
  if (!expect || (expect.selector === undefined && expect.text === undefined)) return null;
  return {
    ...(expect.selector !== undefined ? { selector: expect.selector } : {}),
    ...(expect.text !== undefined ? { text: expect.text } : {}),
    state: expect.state ?? "visible",
    ms: expect.timeout_ms ?? DEFAULT_EXPECT_MS,
  };
}

/** Waits for the expected condition after the action; a dialog it opened leaves it unmet. */
async function expectAfter(
  context: ToolContext,
  target: TabTarget,
  expected: Condition & { ms: number },
): Promise<{ met: boolean; text: string }> {
  const { ms, ...condition } = expected;
  const words = describeCondition(condition);
  if (target.link.tab(target.native).dialog) {
    return { met: false, text: `Expected ${words}: not checked, a dialog froze the page.` };
  }
  const waited = await waitForCondition(context, target, condition, { timeoutMs: ms });
  if (waited.last?.error === "bad_selector") {
    return { met: false, text: `Expected ${words}: not checked, the selector is not valid CSS.` };
  }
  const met = waited.ended === "met";
  const seconds = (waited.elapsedMs / 1000).toFixed(2);
  // What the wait did not ask is said as wait_for says it.
  const notAsked = notAskedNote(waited.last, condition.state);
  return {
    met,
    text: met
      ? `Expected ${words}: held after ${seconds} s.${notAsked}`
      : `Expected ${words}: did NOT hold within ${ms / 1000} s (the action itself happened).` +
        notAsked,
  };
}

/** The action's answer, told how its target was found and whether the expectation held. */
function annotate(
  outcome: Extract<Outcome, { kind: "success" }>,
  resolved: Resolved,
  expectation: { met: boolean; text: string } | null,
): Outcome {
  const structured = { ...(outcome.structured ?? {}) };
  const receipt = structured.receipt as
    | { targetAssurance: string; observedAfter: Record<string, unknown> }
    | undefined;
  if (receipt) {
    receipt.targetAssurance = resolved.assurance;
    if (expectation) receipt.observedAfter.expectMet = expectation.met;
  }
  if (expectation) structured.expectMet = expectation.met;
  if (resolved.alternatives?.length) structured.alternatives = resolved.alternatives;
  // The words asked for are not the element's: its own role and name are the receipt's target.
  const lead = resolved.described
    ? `Best match for ${resolved.described}: ${resolved.ref}${
      resolved.alternatives?.length ? ` (${resolved.alternatives.length} weaker matches)` : ""
    }; the target line below says what it is.\n`
    : "";
  const [first, ...rest] = outcome.content;
  const text = first?.type === "text" ? first.text : "";
  return success(
    `${lead}${text}${expectation ? `\n${expectation.text}` : ""}`,
    structured,
    first?.type === "text" ? rest : outcome.content,
  );
}

/** `act_on`. */
export const actOn: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const resolved = await resolveTarget(context, target, args.target as TargetSpec);
  const outcome = await act(context, target, {
    action: args.action as string,
    ref: resolved.ref,
    value: args.value,
  });
  if (outcome.kind !== "success") return outcome;
  const expected = expectationOf(args);
  const expectation = expected ? await expectAfter(context, target, expected) : null;
  return annotate(outcome, resolved, expectation);
};
