/**
 * What a field fill says (form_input, act_on set_value, each field of form_fill): one line made
 * of the service's own words (the ref, a role from a fixed list, the value the agent gave, states
 * from a fixed list), plus notes that quote the page (a value it changed, its validation message)
 * only when something unexpected happened. The notes go inside the untrusted fence; a fill that
 * went as asked quotes nothing of the page, so it needs no fence. Pure functions.
 *
 * @module
 */

import {
  type Described,
  type FieldFill,
  type FillResult,
  type Refusal,
  TOGGLED_KINDS,
} from "../page_runtime/contract.ts";
import { FILLABLE } from "../page/form_match.ts";
import { toBool } from "../page/on_off.ts";
import { redactSecrets } from "../core/safe_text.ts";

/** A field as the page runtime describes it after the fill. */
export type FieldAfter = Described;

/** Why a field could not take its value (the page runtime's refusals). */
export type FillRefusal = Refusal;

export type { FieldFill, FillResult };

/** One fill in words: the line of service words and the page's words, if any, to fence. */
export interface FillWords {
  line: string;
  /** Lines quoting the page, each starting with the field's ref; empty when nothing was odd. */
  notes: string[];
}

/** Longest value a line repeats; a longer one is cut and its length given. */
const ECHO_MAX = 80;

/**
 * The field's role in words the page cannot choose: a fillable role as it is, else the kind of
 * field the runtime set when that is one (a checkbox the page took out of the document), else
 * "field".
 */
export function roleWord(fill: FieldFill): string {
  const role = fill.after?.role;
  if (role !== undefined && FILLABLE.has(role)) return role;
  return FILLABLE.has(fill.kind) ? fill.kind : "field";
}

/** The value the agent gave, quoted, cut when long, with secret-looking parts hidden. */
export function echo(value: string | boolean | number): string {
  const text = redactSecrets(String(value));
  if (text.length <= ECHO_MAX) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, ECHO_MAX - 1) + "…")} (${text.length} characters)`;
}

/** A field's on-or-off state in words: what was asked of it, or what the page shows. */
type Checked = "checked" | "unchecked" | "mixed";

/**
 * What the agent asked of a field turned on or off: a chosen radio on, else the value given
 * read as on or off. Null for a field that takes text. From the field's kind and the agent's
 * value only, never from what the page shows.
 */
function asked(given: string | boolean | number, fill: FieldFill): Checked | null {
  if (fill.chose !== undefined) return "checked";
  if (!TOGGLED_KINDS.has(fill.kind)) return null;
  const on = toBool(given);
  return on === null ? null : on ? "checked" : "unchecked";
}

/** What the page shows of a field turned on or off, from its states; null when they say none. */
function shown(fill: FieldFill): Checked | null {
  const states = fill.after?.states ?? [];
  return (["checked", "mixed", "unchecked"] as const).find((word) => states.includes(word)) ??
    null;
}

/** The first part of the line: what was asked to be set to what. */
function whatWasSet(ref: string, given: string | boolean | number, fill: FieldFill): string {
  const role = roleWord(fill);
  if (fill.chose !== undefined) return `Chose radio [${ref}] for ${echo(given)}`;
  const turned = asked(given, fill);
  if (turned) return `Set ${role} [${ref}] to ${turned}`;
  if (fill.secret) return `Set ${role} [${ref}] (a secret field: its value is not shown)`;
  return `Set ${role} [${ref}] to ${echo(given)}`;
}

/** How the page's value differs from the one asked for, in service words, quoting it in notes. */
function changed(
  ref: string,
  given: string | boolean | number,
  fill: FieldFill,
  notes: string[],
): string | null {
  const after = fill.after!;
  const turned = asked(given, fill);
  if (turned) {
    const now = shown(fill);
    if (fill.kept && (now === null || now === turned)) return null;
    return now === null ? "the page changed it" : `the page left it ${now}`;
  }
  if (fill.kept) return null;
  if (fill.secret || after.value === undefined) return "the page changed it";
  notes.push(`[${ref}] holds ${JSON.stringify(after.value)}`);
  return "the page changed it (its value is below)";
}

/** What did not go as asked, in service words, with the page's words as notes. */
function surprises(
  ref: string,
  given: string | boolean | number,
  fill: FieldFill,
  notes: string[],
): string[] {
  const said: string[] = [];
  if (!fill.after) {
    said.push("the page then took the field out of the document; read the page again");
    return said;
  }
  const difference = changed(ref, given, fill, notes);
  if (difference) said.push(difference);
  if (fill.invalid !== undefined) {
    if (fill.invalid === "") said.push("the page marks it invalid");
    else {
      said.push("the page marks it invalid (its message is below)");
      notes.push(`[${ref}] invalid: ${JSON.stringify(fill.invalid)}`);
    }
  }
  if (!fill.after.enabled) said.push("it is disabled now");
  if (fill.unseen) {
    said.push("it is not visible on the page, so a person could not have set it this way");
  }
  return said;
}

/**
 * One fill in words. `ref` is the field that took the value (the chosen radio for a group),
 * `given` the value the agent gave. Example: `Set textbox [ref_5] to "a@b.co".`
 */
export function fillWords(
  ref: string,
  given: string | boolean | number,
  fill: FieldFill,
): FillWords {
  const notes: string[] = [];
  const said = surprises(ref, given, fill, notes);
  const head = whatWasSet(ref, given, fill);
  return { line: said.length ? `${head}, but ${said.join("; ")}.` : `${head}.`, notes };
}

/** One label's field, as form_fill filled it: the label, the ref it went to, the value given. */
export interface Filled {
  field: string;
  ref: string;
  given: string | boolean | number;
  fill: FieldFill;
}

/** A label whose field was not set, and why. */
export interface Skipped {
  field: string;
  ref?: string;
  reason: string;
  /** The page's words behind the reason (a select's options), for the fence. */
  quoted?: string;
}

/** A label that matched no field, or several about equally well (the candidates). */
export interface Unmatched {
  field: string;
  reason: string;
  candidates?: { ref: string; role: string; name: string }[];
}

/** What form_fill did, for its words. */
export interface FormFillReport {
  tabId: number;
  total: number;
  filled: Filled[];
  skipped: Skipped[];
  unmatched: Unmatched[];
}

/** Whether a field's name says what the label says, so repeating it tells nothing. */
function sameWords(label: string, name: string): boolean {
  const plain = (text: string) => text.toLowerCase().replace(/[\s:*]+/g, " ").trim();
  return plain(label) === plain(name);
}

/**
 * Whether the field a label went to has a name of its own that says something else (a chosen
 * radio is named by the value given, a field without a name was matched by the text beside it).
 */
function namedOtherwise(f: Filled): boolean {
  const name = f.fill.after?.name ?? "";
  if (name === "") return false;
  return !sameWords(f.fill.chose === undefined ? f.field : String(f.given), name);
}

/** The label as the agent gave it, and the ref it went to. */
function labelled(field: string, ref?: string): string {
  return `${JSON.stringify(field)}${ref ? ` [${ref}]` : ""}`;
}

/** Skipped fields, one line per reason. */
function skippedLines(report: FormFillReport, notes: string[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const skip of report.skipped) {
    const why = skip.reason.replace(/^not set: /, "");
    const reason = skip.quoted === undefined ? why : `${why} (see below)`;
    byReason.set(reason, [...byReason.get(reason) ?? [], labelled(skip.field, skip.ref)]);
    if (skip.quoted !== undefined) {
      notes.push(`${labelled(skip.field, skip.ref)} options: ${skip.quoted}`);
    }
  }
  return [...byReason].map(([reason, fields]) => `Not set: ${fields.join(", ")}: ${reason}.`);
}

/** Labels that matched no field, or several. */
function unmatchedLines(report: FormFillReport, notes: string[]): string[] {
  const none = report.unmatched.filter((u) => !u.candidates).map((u) => labelled(u.field));
  const lines = none.length ? [`No field has the label ${none.join(", ")}.`] : [];
  for (const unmatched of report.unmatched.filter((u) => u.candidates)) {
    lines.push(
      `${labelled(unmatched.field)} matches several fields about equally well (see below); ` +
        "set the one meant with form_input and its ref.",
    );
    const candidates = unmatched.candidates!.map((c) =>
      `${c.role} ${JSON.stringify(c.name)} [${c.ref}]`
    );
    notes.push(`${labelled(unmatched.field)} could be: ${candidates.join(", ")}`);
  }
  return lines;
}

/**
 * form_fill's answer in words: a count and each label with the ref it went to in one line, a
 * line for each field the page did not take as given, for what was not set and why, and for
 * labels that matched no field; the page's words (names that differ from the labels, values
 * the page changed, its messages, a select's options) as notes for the fence.
 */
export function formFillWords(report: FormFillReport): FillWords {
  const notes: string[] = [];
  const { filled, total } = report;
  const left = [
    report.unmatched.length ? `${report.unmatched.length} unmatched` : "",
    report.skipped.length ? `${report.skipped.length} not set` : "",
  ].filter(Boolean);
  const list = filled.map((f) => labelled(f.field, f.ref)).join(", ");
  const lines = [
    `Filled ${filled.length} of ${total} fields on tab ${report.tabId}` +
    (left.length ? ` (${left.join(", ")})` : "") + (list ? `: ${list}.` : "."),
  ];
  for (const f of filled) {
    const words = fillWords(f.ref, f.given, f.fill);
    if (words.notes.length || words.line.includes(", but ")) {
      lines.push(`${JSON.stringify(f.field)}: ${words.line}`);
      notes.push(...words.notes);
    }
    if (namedOtherwise(f)) {
      notes.push(
        `${labelled(f.field, f.ref)} is ${f.fill.after!.role} ${
          JSON.stringify(f.fill.after!.name)
        }`,
      );
    }
  }
  lines.push(...skippedLines(report, notes), ...unmatchedLines(report, notes));
  return { line: lines.join("\n"), notes };
}
