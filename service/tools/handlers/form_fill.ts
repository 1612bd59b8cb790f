/**
 * `form_fill`: many fields by their visible labels in one call. The page is read once (the
 * outline find and read_page use), each label is matched to a field with find's ranking
 * (`page/form_match.ts`), and each field is set exactly as `form_input` sets one (the page
 * runtime's `setValue`: native setters, then the events frameworks listen to). The answer says
 * what was filled, what matched nothing and what was skipped, and why. With `submit`, the form's
 * submit button is clicked through computer's click, with its receipt; a form with fields left
 * unfilled is not submitted.
 *
 * @module
 */

import type { Outcome } from "../../../shared/bridge.ts";
import { BrowserError } from "../../browser/mod.ts";
import { type Handler, success, type ToolContext } from "../core/context.ts";
import { fence, originOf } from "../core/fence.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { dialogAfterEffect } from "../page/after_dialog.ts";
import { collect, type CollectedNode } from "../page/collect.ts";
import { type FieldMatch, fillableFields, matchFields } from "../page/form_match.ts";
import { runtimeCall } from "../page/in_page.ts";
import { provenance } from "../page/provenance.ts";
import { redactSecrets } from "../page/redact.ts";
import { FrameGone, inFrame, lookupRef, refFor, type TabPages, tabPages } from "../page/refs.ts";
import { ACTIONS } from "./computer.ts";

type Value = string | boolean | number;

/** What setting one field did (the page runtime's `SetResult`). */
type SetResult =
  | { kind: string; after: { role: string; name: string; value?: string; states?: string[] } }
    & { actual?: boolean }
  | { error: string; options?: { value: string; label: string }[]; type?: string };

interface Filled {
  field: string;
  ref: string;
  role: string;
  name: string;
  value?: string;
  states?: string[];
  /** False when the page changed the value after it was set. */
  kept: boolean;
}

interface Skipped {
  field: string;
  ref?: string;
  reason: string;
}

interface Unmatched {
  field: string;
  reason: string;
  candidates?: { ref: string; role: string; name: string }[];
}

/** Everything one form_fill did, for its answer. */
interface Report {
  filled: Filled[];
  skipped: Skipped[];
  unmatched: Unmatched[];
  url: string;
  /** The field whose setting a dialog interrupted, when one did. */
  dialogAfter?: string;
}

/** Why a field could not take its value, in words. */
function whyNot(result: Extract<SetResult, { error: string }>): string {
  switch (result.error) {
    case "disabled":
      return "the field is disabled";
    case "readonly":
      return "the field is read-only";
    case "radio_off":
      return "a radio button cannot be turned off; set another in its group";
    case "no_option":
      return `no option with that value; its options: ${
        (result.options ?? []).map((option) => JSON.stringify(option.label)).join(", ")
      }`;
    case "not_settable":
      return result.type === "file"
        ? "a file input: use file_upload"
        : `an input of type ${result.type}: click it instead`;
    case "not_boolean":
      return "a checkbox or switch: give true or false";
    case "gone":
      return "the field left the page while the form was filled";
    default:
      return `not a field (${result.error})`;
  }
}

/** Sets one matched field; a dialog its events opened ends the filling. */
async function setOne(
  target: TabTarget,
  pages: TabPages,
  match: { label: string; node: CollectedNode; value: Value },
  report: Report,
): Promise<boolean> {
  const { node, label } = match;
  let result: SetResult;
  try {
    result = await inFrame<SetResult>(
      target,
      pages,
      node.at!.frame,
      runtimeCall("setValue", node.at!.localId, match.value),
    );
  } catch (error) {
    if (error instanceof FrameGone) {
      report.skipped.push({ field: label, ref: node.ref, reason: "the page navigated" });
      return false;
    }
    if (!(error instanceof BrowserError && error.kind === "dialog_open")) throw error;
    report.skipped.push({
      field: label,
      ref: node.ref,
      reason: "a dialog opened while it was set: it may be set, its page handler is waiting",
    });
    report.dialogAfter = label;
    return false;
  }
  if ("error" in result) {
    report.skipped.push({ field: label, ref: node.ref, reason: whyNot(result) });
    return true;
  }
  const after = result.after;
  const chose = (result as { chose?: number }).chose;
  report.filled.push({
    field: label,
    ref: chose === undefined ? node.ref! : refFor(pages, node.at!.frame, chose),
    role: after.role,
    name: redactSecrets(after.name),
    ...(after.value !== undefined ? { value: redactSecrets(after.value) } : {}),
    ...(after.states?.length ? { states: after.states } : {}),
    kept: result.actual !== false,
  });
  return true;
}

/** Matches every label and sets the matched fields in the order the call gave them. */
async function fill(
  target: TabTarget,
  pages: TabPages,
  fields: Record<string, Value>,
): Promise<Report> {
  const outline = await collect(target, pages, { filter: "all", hints: true });
  const report: Report = { filled: [], skipped: [], unmatched: [], url: outline.url };
  const matches: FieldMatch<CollectedNode>[] = matchFields(
    Object.keys(fields),
    fillableFields(outline.nodes),
  );
  let going = true;
  for (const match of matches) {
    if ("unmatched" in match) {
      report.unmatched.push(unmatchedEntry(match));
      continue;
    }
    if (!going) {
      report.skipped.push({
        field: match.label,
        ref: match.field.node.ref,
        reason: `not set: a dialog opened after "${report.dialogAfter}"`,
      });
      continue;
    }
    const node = match.field.node;
    going = await setOne(
      target,
      pages,
      { label: match.label, node, value: fields[match.label] },
      report,
    );
  }
  return report;
}

function unmatchedEntry(match: Extract<FieldMatch<CollectedNode>, { unmatched: string }>) {
  if (match.unmatched === "none") {
    return { field: match.label, reason: "no field on the page has that label" };
  }
  return {
    field: match.label,
    reason: "several fields match it about equally well",
    candidates: match.candidates.map((node) => ({
      ref: node.ref!,
      role: node.role,
      name: redactSecrets(node.name),
    })),
  };
}

/** The submit button of the form the first filled field is in, as a ref; null without one. */
async function submitRef(target: TabTarget, pages: TabPages, report: Report) {
  const first = report.filled[0];
  if (!first) return null;
  const { frame, localId } = lookupRef(pages, first.ref);
  const id = await inFrame<number | null>(
    target,
    pages,
    frame,
    runtimeCall("submitControl", localId),
  );
  return id === null ? null : refFor(pages, frame, id);
}

/** Submits unless something stands in the way; says why not when it does not. */
async function submit(
  context: ToolContext,
  target: TabTarget,
  report: Report,
): Promise<{ outcome?: Outcome; ref?: string; notSubmitted?: string }> {
  const left = report.unmatched.length + report.skipped.length;
  if (report.dialogAfter || target.link.tab(target.native).dialog) {
    return { notSubmitted: "a dialog is open" };
  }
  if (left > 0) {
    return {
      notSubmitted: `${left === 1 ? "1 field was" : `${left} fields were`} not filled; ` +
        "fill what is missing (form_input with a ref, or form_fill again), then submit",
    };
  }
  const ref = await submitRef(target, pages(context, target), report);
  if (!ref) {
    return { notSubmitted: "the form has no submit button; click the button that sends it" };
  }
  return { outcome: await ACTIONS.left_click({ ref, tabId: target.tabId }, context, target), ref };
}

function pages(context: ToolContext, target: TabTarget): TabPages {
  return tabPages(context.workspace, target.tabId);
}

/** The answer's text: counts plainly, page words fenced. */
function render(context: ToolContext, target: TabTarget, report: Report, total: number): string {
  const lines = [
    ...report.filled.map((f) =>
      `"${f.field}" → ${f.role} "${f.name}" [${f.ref}]` +
      (f.value !== undefined ? ` = ${JSON.stringify(f.value)}` : "") +
      (f.states?.length ? ` (${f.states.join(", ")})` : "") +
      (f.kept ? "" : " — the page changed the value after it was set")
    ),
    ...report.skipped.map((s) => `SKIPPED "${s.field}"${s.ref ? ` [${s.ref}]` : ""}: ${s.reason}`),
    ...report.unmatched.map((u) =>
      `UNMATCHED "${u.field}": ${u.reason}` +
      (u.candidates
        ? ` (${u.candidates.map((c) => `${c.role} "${c.name}" [${c.ref}]`).join(", ")})`
        : "")
    ),
  ];
  return `Filled ${report.filled.length} of ${total} fields on tab ${target.tabId}` +
    `${report.unmatched.length ? `, ${report.unmatched.length} unmatched` : ""}` +
    `${report.skipped.length ? `, ${report.skipped.length} skipped` : ""}.\n` +
    fence(context.workspace, originOf(report.url), lines.join("\n"));
}

/** `form_fill`. */
export const formFill: Handler = async (args, context) => {
  const target = ownedTab(context.workspace, context.browsers, args.tabId as number);
  const fields = args.fields as Record<string, Value>;
  const report = await fill(target, pages(context, target), fields);
  const total = Object.keys(fields).length;
  let text = render(context, target, report, total);
  const structured: Record<string, unknown> = {
    tabId: target.tabId,
    filled: report.filled,
    unmatched: report.unmatched,
    skipped: report.skipped,
    provenance: provenance(context.workspace, report.url),
  };
  const extra = [];
  if (args.submit === true) {
    const sent = await submit(context, target, report);
    if (sent.outcome?.kind === "success") {
      const [first, ...rest] = sent.outcome.content;
      text += `\nSubmitted with ${sent.ref}: ${first?.type === "text" ? first.text : ""}`;
      extra.push(...rest);
      structured.submitted = { ref: sent.ref, ...(sent.outcome.structured ?? {}) };
    } else if (sent.outcome) {
      text += `\nNot submitted: clicking ${sent.ref} failed: ${
        "message" in sent.outcome ? sent.outcome.message : ""
      }`;
      structured.submitted = false;
    } else {
      text += `\nNot submitted: ${sent.notSubmitted}.`;
      structured.submitted = false;
    }
  }
  if (!structured.submitted) text += dialogAfterEffect(context.workspace, target, "filling");
  return success(text, structured, extra);
};
