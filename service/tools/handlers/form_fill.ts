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
import { fence, originOf, redactSecrets } from "../core/safe_text.ts";
import { ownedTab, type TabTarget } from "../core/target.ts";
import { dialogAfterEffect } from "../page/after_dialog.ts";
import { capabilitiesFor } from "../../catalog/mod.ts";
import { collect, frameGuard, MAX_NODES, unreadNote, withheldNote } from "../page/collect.ts";
import { fillableFields, matchFields } from "../page/form_match.ts";
import type { ByLabels } from "../page_runtime/contract.ts";
import {
  type Frame,
  FrameGone,
  type FrameGuard,
  FrameHeld,
  HELD_PAGE,
  inFrame,
  knownMain,
  lookupRef,
  refFor,
  runtimeCall,
  type TabPages,
  tabPages,
} from "../page/frames.ts";
import { provenance } from "../page/provenance.ts";
import {
  type Filled,
  type FillRefusal,
  type FillResult,
  formFillWords,
  type Skipped,
  type Unmatched,
} from "../input/fill_receipt.ts";
import { actedOutcome, perform } from "../input/act.ts";
import { FILL_BOUND_MS } from "../input/set_value.ts";

type Value = string | boolean | number;

/** How long one call may spend starting fields in the page; after it, none is started. */
const FILL_BUDGET_MS = FILL_BOUND_MS / 2;

/** Everything one form_fill did, for its answer. */
interface Report {
  filled: Filled[];
  skipped: Skipped[];
  unmatched: Unmatched[];
  url: string;
  /** Set when a dialog (or a page that stayed busy) stopped the filling: which fields it held. */
  stopped?: string;
  /** Frames the policy refuses for this fill: none of their fields was looked at or set. */
  withheldFrames?: { ref: string; why: string }[];
  /**
   * Frames not read (too deep, too many, held, or failed), in Ghostlight's words (0690): a field
   * in one is unmatched for that reason, not for its label.
   */
  unreadFrames?: string[];
}

/** Why a field could not take its value, in words; the page's own words apart. */
function whyNot(result: FillRefusal): { reason: string; quoted?: string } {
  switch (result.error) {
    case "disabled":
      return { reason: "the field is disabled" };
    case "fieldset_disabled":
      return { reason: "the field's group (its fieldset) is disabled" };
    case "hidden":
      return { reason: "the field is not visible (a hidden field may be a trap for bots)" };
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

/** Whether a submit click's receipt says the form's own checks refused the submission. */
function refusedByForm(attempt: Record<string, unknown>): boolean {
  const receipt = attempt.receipt as { blockers?: { kind: string }[] } | undefined;
  return receipt?.blockers?.some((blocker) => blocker.kind === "invalid_form") === true;
}

/** A field to set: its label, its ref and the element behind it, and the value. */
interface Job {
  label: string;
  ref: string;
  frame: Frame;
  localId: number;
  value: Value;
}

/**
 * Per tab, the token of the main-frame document last found to have frames needing their own
 * world: form_fill takes the outline-first way there at once instead of walking it in vain.
 */
const framedDocuments = new WeakMap<TabPages, string>();

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

/** The labels of fields the filling stopped at, for the answer. */
function labelList(labels: string[]): string {
  return labels.map((label) => JSON.stringify(label)).join(", ");
}

/**
 * Notes what the fills of a run of fields did (in the run's order, as the page answered them);
 * a field that held the page stopped the filling after it. Returns whether filling may go on.
 */
function recordRun(pages: TabPages, run: Job[], results: FillResult[], report: Report): boolean {
  run.forEach((job, index) => {
    const result = results[index];
    if ("error" in result) {
      report.skipped.push({ field: job.label, ref: job.ref, ...whyNot(result) });
      return;
    }
    const ref = result.chose === undefined ? job.ref : refFor(pages, job.frame, result.chose);
    report.filled.push({ field: job.label, ref, given: job.value, fill: result });
  });
  const held = results.findIndex((result) => "error" in result && result.error === "held");
  if (held >= 0) report.stopped = labelList([run[Math.max(0, held - 1)].label]);
  return held < 0;
}

/**
 * Why a run's fields were not set when their frame was found held before anything was sent to
 * it (decision 0780), in Ghostlight's words.
 */
const FRAME_HELD = `not set: its frame's page is ${HELD_PAGE}, so nothing was sent to it`;

/**
 * Sets a run of fields of one frame in one evaluation (the runtime's `fillMany`). In a frame of
 * its own renderer a bounded look goes first: a held one gets nothing, its fields are told as not
 * set and the filling goes on with the next frame, as after any field not set (decision 0780).
 * A dialog their events opened, or a page that stays busy, ends the filling with the run's
 * outcome unknown; a field that held the page ends it after that field. Returns whether filling
 * may go on.
 */
async function setRun(
  target: TabTarget,
  pages: TabPages,
  run: Job[],
  report: Report,
): Promise<boolean> {
  let results: FillResult[];
  try {
    results = await inFrame(
      target,
      pages,
      run[0].frame,
      runtimeCall("fillMany", run.map((job) => [job.localId, job.value]), FILL_BUDGET_MS),
      { checkedInPage: true, timeoutMs: FILL_BOUND_MS, lookFirst: true },
    );
  } catch (error) {
    if (error instanceof FrameHeld) {
      for (const job of run) {
        report.skipped.push({ field: job.label, ref: job.ref, reason: FRAME_HELD });
      }
      return true;
    }
    const reason = error instanceof FrameGone ? "not set: the page navigated" : heldBy(error);
    if (reason === null) throw error;
    for (const job of run) report.skipped.push({ field: job.label, ref: job.ref, reason });
    report.stopped = labelList(run.map((job) => job.label));
    return false;
  }
  return recordRun(pages, run, results, report);
}

/** The matched fields in the call's order, cut into runs that share a frame. */
function runsOf(jobs: Job[]): Job[][] {
  const runs: Job[][] = [];
  for (const job of jobs) {
    const last = runs.at(-1);
    if (last && last[0].frame === job.frame) last.push(job);
    else runs.push([job]);
  }
  return runs;
}

/** Matches every label and sets the matched fields in the order the call gave them. */
async function fill(
  target: TabTarget,
  pages: TabPages,
  fields: Record<string, Value>,
  guard: FrameGuard,
): Promise<Report> {
  const quick = await fillInOneTrip(target, pages, fields);
  if (quick) return quick;
  const outline = await collect(target, pages, { filter: "all", hints: true, guard });
  const report: Report = { filled: [], skipped: [], unmatched: [], url: outline.url };
  if (outline.withheldFrames.length) report.withheldFrames = outline.withheldFrames;
  if (outline.unreadFrames.length) report.unreadFrames = outline.unreadFrames;
  const jobs: Job[] = [];
  for (const match of matchFields(Object.keys(fields), fillableFields(outline.nodes))) {
    if ("field" in match) {
      const { ref, at } = match.field.node;
      const value = fields[match.label];
      jobs.push({ label: match.label, ref: ref!, frame: at!.frame, localId: at!.localId, value });
    } else {
      report.unmatched.push(
        unmatchedEntry(
          match.label,
          match.unmatched === "ambiguous"
            ? match.candidates.map(({ ref, role, name }) => ({ ref: ref!, role, name }))
            : undefined,
        ),
      );
    }
  }
  let going = true;
  for (const run of runsOf(jobs)) {
    if (going) going = await setRun(target, pages, run, report);
    else {
      for (const job of run) {
        report.skipped.push({
          field: job.label,
          ref: job.ref,
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
  const frame = knownMain(target, pages);
  if (!frame || framedDocuments.get(pages) === frame.token) return null;
  const labels = Object.keys(fields);
  const call = runtimeCall(
    "fillByLabels",
    frame.token,
    labels,
    labels.map((label) => fields[label]),
    MAX_NODES,
    FILL_BUDGET_MS,
  );
  let answer: ByLabels;
  try {
    answer = await inFrame(target, pages, frame, call, {
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
      stopped: labelList(labels),
    };
  }
  if ("framed" in answer) framedDocuments.set(pages, frame.token);
  if (!("matches" in answer)) return null;
  const report: Report = { filled: [], skipped: [], unmatched: [], url: answer.url };
  const jobs: Job[] = [];
  answer.matches.forEach((match, index) => {
    const label = labels[index];
    if ("id" in match) {
      const ref = refFor(pages, frame, match.id);
      jobs.push({ label, ref, frame, localId: match.id, value: fields[label] });
    } else {
      report.unmatched.push(
        unmatchedEntry(
          label,
          match.unmatched === "ambiguous"
            ? match.candidates.map(({ id, role, name }) => ({
              ref: refFor(pages, frame, id),
              role,
              name,
            }))
            : undefined,
        ),
      );
    }
  });
  recordRun(pages, jobs, answer.results, report);
  return report;
}

/** A label that matched no field (no candidates), or several about equally well. */
function unmatchedEntry(
  label: string,
  candidates?: { ref: string; role: string; name: string }[],
): Unmatched {
  if (!candidates) return { field: label, reason: "no field on the page has that label" };
  return {
    field: label,
    reason: "several fields match it about equally well",
    candidates: candidates.map((c) => ({ ...c, name: redactSecrets(c.name) })),
  };
}

/**
 * The submit button of the form the first filled field is in, as a ref; null without one. Finding
 * it changes nothing on the page: in a frame of its own renderer it is asked as a read, and a held
 * frame is {@linkcode FrameHeld} (decision 0780).
 */
async function submitRef(target: TabTarget, pages: TabPages, report: Report) {
  const first = report.filled[0];
  if (!first) return null;
  const { frame, localId } = lookupRef(pages, first.ref);
  const id = await inFrame(
    target,
    pages,
    frame,
    runtimeCall("submitControl", localId),
    { read: true },
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
  let ref: string | null;
  try {
    ref = await submitRef(target, pages(context, target), report);
  } catch (error) {
    if (!(error instanceof FrameHeld)) throw error;
    return {
      notSubmitted: `the form's frame became ${HELD_PAGE} after it was filled, so its submit ` +
        "button could not be found; nothing was clicked",
    };
  }
  if (!ref) {
    return { notSubmitted: "the form has no submit button; click the button that sends it" };
  }
  const clicked = await perform(context, target, {
    kind: "click",
    action: "left_click",
    at: { ref },
    button: "left",
    clicks: 1,
  });
  return { outcome: actedOutcome(context, clicked), ref };
}

function pages(context: ToolContext, target: TabTarget): TabPages {
  return tabPages(context.workspace, target.tabId);
}

/** The answer's text: service words plainly, the page's words in one fence at the end. */
function render(context: ToolContext, target: TabTarget, report: Report, total: number): string {
  const words = formFillWords({ ...report, tabId: target.tabId, total });
  const notes = words.notes.map(redactSecrets);
  const withheld = withheldNote(report.withheldFrames ?? []);
  const unread = unreadNote(report.unreadFrames ?? []);
  return words.line + (withheld ? `\n${withheld}` : "") + (unread ? `\n${unread}` : "") +
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
  // Each frame is decided for what this fill does in it: read, write, and action to submit.
  const guard = frameGuard(context, capabilitiesFor("form_fill", args));
  const report = await fill(target, pages(context, target), fields, guard);
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
    ...(report.withheldFrames ? { withheldFrames: report.withheldFrames } : {}),
  };
  const extra = [];
  if (args.submit === true) {
    const sent = await submit(context, target, report);
    if (sent.outcome?.kind === "success") {
      const [first, ...rest] = sent.outcome.content;
      const clicked = first?.type === "text" ? first.text : "";
      extra.push(...rest);
      const attempt = { ref: sent.ref, ...(sent.outcome.structured ?? {}) };
      if (refusedByForm(attempt)) {
        // The click happened, but the browser's own validation kept the form from going.
        text += `\nNot submitted: the form refused the click on ${sent.ref}: ${clicked}`;
        structured.submitted = false;
        structured.submitAttempt = attempt;
      } else {
        text += `\nSubmitted with ${sent.ref}: ${clicked}`;
        structured.submitted = attempt;
      }
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
