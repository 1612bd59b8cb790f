/**
 * `form_fill`: many fields by their visible labels in one call. The page is read once (the
 * outline find and read_page use), each label is matched to a field with find's ranking
 * (`page/form_match.ts`), and the matched fields of each frame are set in one evaluation, each
 * as `form_input` sets one (the page runtime's `fillMany`: native setters, the events frameworks
 * listen to, then the field read back). The answer says what was filled, what matched nothing
 * and what was not set, and why, quoting the page only where it differs. With `submit`, the form's
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
import { collect, type CollectedNode, MAX_NODES } from "../page/collect.ts";
import { type FieldMatch, fillableFields, matchFields } from "../page/form_match.ts";
import { runtimeCall } from "../page/in_page.ts";
import { knownMain } from "../page/main_frame_read.ts";
import { provenance } from "../page/provenance.ts";
import { redactSecrets } from "../page/redact.ts";
import {
  type Frame,
  FrameGone,
  inFrame,
  lookupRef,
  refFor,
  type TabPages,
  tabPages,
} from "../page/refs.ts";
import {
  type FieldFill,
  type FillRefusal,
  type FillResult,
  formFillWords,
} from "../input/fill_receipt.ts";
import { ACTIONS } from "./computer.ts";
import { FILL_BOUND_MS } from "./form_input.ts";

type Value = string | boolean | number;

/** How long one call may spend starting fields in the page; after it, none is started. */
const FILL_BUDGET_MS = FILL_BOUND_MS / 2;

interface Filled {
  field: string;
  ref: string;
  given: Value;
  fill: FieldFill;
}

interface Skipped {
  field: string;
  ref?: string;
  reason: string;
  /** The page's words behind the reason (a select's options), for the fence. */
  quoted?: string;
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
  /** Set when a dialog (or a page that stayed busy) stopped the filling: which fields it held. */
  stopped?: string;
}

/** Why a field could not take its value, in words; the page's own words apart. */
function whyNot(result: FillRefusal): { reason: string; quoted?: string } {
  switch (result.error) {
    case "disabled":
      return { reason: "the field is disabled" };
    case "readonly":
      return { reason: "the field is read-only" };
    case "radio_off":
      return { reason: "a radio button cannot be turned off; set another in its group" };
    case "no_option":
      return {
        reason: "no option with that value",
        quoted: result.options.map((option) => JSON.stringify(option.label)).join(", "),
      };
    case "not_settable":
      return {
        reason: result.type === "file"
          ? "a file input: use file_upload"
          : `an input of type ${JSON.stringify(result.type)}: click it instead`,
      };
    case "not_boolean":
      return { reason: "a checkbox or switch: give true or false" };
    case "gone":
      return { reason: "the field left the page while the form was filled" };
    case "held":
      return {
        reason: "not set: a field before it held the page (a dialog, or a handler that blocks)",
      };
    case "not_a_field":
      return { reason: "not a field" };
  }
}

/** The page runtime's `fillByLabels` answer: each label's match by element number, the fills. */
type LabelFill =
  | { stale: true }
  | { framed: true }
  | {
    url: string;
    matches: (
      | { id: number }
      | { unmatched: "none" }
      | { unmatched: "ambiguous"; candidates: { id: number; role: string; name: string }[] }
    )[];
    results: FillResult[];
  };

/** A field to set: its label, where it lives, and the value. */
interface Job {
  label: string;
  node: CollectedNode;
  value: Value;
}

/** Why fields being set were left in doubt (a dialog, a busy page); null for other failures. */
function heldBy(error: unknown): string | null {
  const held = error instanceof BrowserError && error.kind === "dialog_open"
    ? "a dialog opened"
    : error instanceof BrowserError && error.kind === "timeout"
    ? `the page was still busy after ${FILL_BOUND_MS / 1000} s`
    : null;
  return held &&
    `${held} while these fields were set: which of them are set is unknown until it ` +
      "ends (fields after the one that held the page are not started); read the form then";
}

/**
 * Sets a run of fields of one frame in one evaluation (the runtime's `fillMany`). A dialog their
 * events opened, or a page that stays busy, ends the filling with the run's outcome unknown; a
 * field that held the page ends it after that field. Returns whether filling may go on.
 */
async function setRun(
  target: TabTarget,
  pages: TabPages,
  run: Job[],
  report: Report,
): Promise<boolean> {
  const frame = run[0].node.at!.frame;
  let results: FillResult[];
  try {
    results = await inFrame<FillResult[]>(
      target,
      pages,
      frame,
      runtimeCall("fillMany", run.map((job) => [job.node.at!.localId, job.value]), FILL_BUDGET_MS),
      { checkedInPage: true, timeoutMs: FILL_BOUND_MS },
    );
  } catch (error) {
    const reason = error instanceof FrameGone ? "not set: the page navigated" : heldBy(error);
    if (reason === null) throw error;
    for (const job of run) report.skipped.push({ field: job.label, ref: job.node.ref, reason });
    report.stopped = run.map((job) => JSON.stringify(job.label)).join(", ");
    return false;
  }
  run.forEach((job, index) => record(pages, frame, job, results[index], report));
  const held = results.findIndex((result) => "error" in result && result.error === "held");
  if (held >= 0) report.stopped = JSON.stringify(run[Math.max(0, held - 1)].label);
  return held < 0;
}

/** Notes what one field's fill did. */
function record(pages: TabPages, frame: Frame, job: Job, result: FillResult, report: Report) {
  if ("error" in result) {
    report.skipped.push({ field: job.label, ref: job.node.ref, ...whyNot(result) });
    return;
  }
  const ref = result.chose === undefined ? job.node.ref! : refFor(pages, frame, result.chose);
  report.filled.push({ field: job.label, ref, given: job.value, fill: result });
}

/** The matched fields in the call's order, cut into runs that share a frame. */
function runsOf(jobs: Job[]): Job[][] {
  const runs: Job[][] = [];
  for (const job of jobs) {
    const last = runs.at(-1);
    if (last && last[0].node.at!.frame === job.node.at!.frame) last.push(job);
    else runs.push([job]);
  }
  return runs;
}

/** Matches every label and sets the matched fields in the order the call gave them. */
async function fill(
  target: TabTarget,
  pages: TabPages,
  fields: Record<string, Value>,
): Promise<Report> {
  const quick = await fillInOneTrip(target, pages, fields);
  if (quick) return quick;
  const outline = await collect(target, pages, { filter: "all", hints: true });
  const report: Report = { filled: [], skipped: [], unmatched: [], url: outline.url };
  const jobs: Job[] = [];
  for (const match of matchFields(Object.keys(fields), fillableFields(outline.nodes))) {
    if ("unmatched" in match) report.unmatched.push(unmatchedEntry(match));
    else jobs.push({ label: match.label, node: match.field.node, value: fields[match.label] });
  }
  let going = true;
  for (const run of runsOf(jobs)) {
    if (going) going = await setRun(target, pages, run, report);
    else {
      for (const job of run) {
        report.skipped.push({
          field: job.label,
          ref: job.node.ref,
          reason: `not set: filling stopped at ${report.stopped}`,
        });
      }
    }
  }
  return report;
}

/**
 * The whole fill in one evaluation when the main frame's world is known and the page has no
 * frames of its own (decision 0220): the labels are matched in the page, with the same matching,
 * and the matched fields set there at once. Null when the page must take the outline-first path
 * (nothing was set then).
 */
async function fillInOneTrip(
  target: TabTarget,
  pages: TabPages,
  fields: Record<string, Value>,
): Promise<Report | null> {
  const frame = knownMain(pages);
  if (!frame) return null;
  const labels = Object.keys(fields);
  const call = runtimeCall(
    "fillByLabels",
    frame.token,
    labels,
    labels.map((label) => fields[label]),
    MAX_NODES,
    FILL_BUDGET_MS,
  );
  let answer: LabelFill;
  try {
    answer = await inFrame<LabelFill>(target, pages, frame, call, {
      checkedInPage: true,
      timeoutMs: FILL_BOUND_MS,
    });
  } catch (error) {
    // A world gone before it answered set nothing (the walk and the fill are one evaluation).
    if (error instanceof FrameGone) return null;
    const reason = heldBy(error);
    if (reason === null) throw error;
    return {
      filled: [],
      skipped: labels.map((field) => ({ field, reason })),
      unmatched: [],
      url: target.link.knownLocation(target.native)?.tab.url ?? "",
      stopped: labels.map((label) => JSON.stringify(label)).join(", "),
    };
  }
  if (!("matches" in answer)) return null;
  const report: Report = { filled: [], skipped: [], unmatched: [], url: answer.url };
  const jobs: Job[] = [];
  answer.matches.forEach((match, index) => {
    const label = labels[index];
    if ("id" in match) {
      const node: CollectedNode = {
        ref: refFor(pages, frame, match.id),
        at: { frame, localId: match.id },
        depth: 0,
        role: "",
        name: "",
      };
      jobs.push({ label, node, value: fields[label] });
    } else if (match.unmatched === "none") {
      report.unmatched.push(unmatchedEntry({ label, unmatched: "none" }));
    } else {
      const candidates = match.candidates.map(({ id, role, name }) => ({
        ref: refFor(pages, frame, id),
        depth: 0,
        role,
        name,
      }));
      report.unmatched.push(unmatchedEntry({ label, unmatched: "ambiguous", candidates }));
    }
  });
  jobs.forEach((job, index) => record(pages, frame, job, answer.results[index], report));
  const held = answer.results.findIndex((result) => "error" in result && result.error === "held");
  if (held >= 0) report.stopped = JSON.stringify(jobs[Math.max(0, held - 1)].label);
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
  if (report.stopped || target.link.tab(target.native).dialog) {
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

/** The answer's text: service words plainly, the page's words in one fence at the end. */
function render(context: ToolContext, target: TabTarget, report: Report, total: number): string {
  const words = formFillWords({ ...report, tabId: target.tabId, total });
  const notes = words.notes.map(redactSecrets);
  return words.line +
    (notes.length ? `\n${fence(context.workspace, originOf(report.url), notes.join("\n"))}` : "");
}

/** A filled field in the structured answer: what it went to, and only what was not as given. */
function filledEntry(f: Filled): Record<string, unknown> {
  const after = f.fill.after;
  return {
    field: f.field,
    ref: f.ref,
    kept: f.fill.kept,
    ...(after && !f.fill.kept && after.value !== undefined
      ? { value: redactSecrets(after.value) }
      : {}),
    ...(f.fill.invalid !== undefined ? { invalid: redactSecrets(f.fill.invalid) } : {}),
  };
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
    filled: report.filled.map(filledEntry),
    unmatched: report.unmatched,
    skipped: report.skipped.map(({ field, ref, reason, quoted }) => ({
      field,
      ...(ref ? { ref } : {}),
      reason: quoted === undefined ? reason : `${reason}; its options: ${quoted}`,
    })),
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
