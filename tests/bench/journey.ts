/**
 * The scripted journey every peer walks, the same steps in the same order, and the checks that
 * say whether each step really happened: on the page or at the fixture server, never from the
 * peer's own account of it.
 *
 * Open a 15-field form, read it, click the first field and type into it, fill the other 14 one
 * by one, submit, read the confirmation, take a screenshot; open a page with an iframe and a
 * shadow-DOM button, read it, click the button. Outside the journey's total: one read of the
 * 3,000-row page, a search for one row's button, and all 14 fields in one call where a peer has
 * such a tool.
 *
 * @module
 */

import type { FixtureServer, FormSubmission } from "../support/fixtures.ts";
import { waitFor, within } from "../support/wait.ts";

/** One answer of a peer to one call, as the bench counts it. */
export interface Answer {
  /** The text blocks joined by newlines: what the model reads. */
  text: string;
  /** Characters in the text blocks (without the joining newlines). */
  textChars: number;
  /** Characters of image data (base64), counted apart from text. */
  imageChars: number;
  images: { mimeType: string; data: string }[];
  isError: boolean;
}

/** A field of the bench form and what the journey puts in it. */
export interface Field {
  label: string;
  /** The form control's name: the key the server receives. */
  name: string;
  role: "textbox" | "combobox" | "spinbutton" | "checkbox";
  /** What the journey sets: option text for a select, true for the checkbox. */
  value: string | boolean;
  /** What the server must receive for it. */
  submitted: string;
}

/** The field the journey clicks and types into, and what it types. */
export const TYPED_FIELD: Field = {
  label: "Full name",
  name: "fullName",
  role: "textbox",
  value: "Ada Lighthouse",
  submitted: "Ada Lighthouse",
};

/** The 14 fields filled one call each after the typed one. */
export const FILLED_FIELDS: Field[] = [
  ["Email address", "email", "textbox", "ada@skerry-point.example"],
  ["Phone number", "phone", "textbox", "+47 555 01 00"],
  ["Street address", "street", "textbox", "1 Lamp Road"],
  ["City", "city", "textbox", "Skerry"],
  ["Postcode", "postcode", "textbox", "9990"],
  ["Country", "country", "combobox", "Ireland", "ie"],
  ["Lighthouse name", "lighthouse", "textbox", "Skerry Point"],
  ["Years of service", "years", "spinbutton", "12"],
  ["Favourite lamp", "lamp", "textbox", "Fresnel lens"],
  ["Emergency contact", "contact", "textbox", "Grace Keeper"],
  ["Emergency contact phone", "contactPhone", "textbox", "+47 555 02 00"],
  ["Radio call sign", "callSign", "textbox", "LH-7"],
  ["About you", "about", "textbox", "Keeper of the lamp for twelve winters."],
  ["Send me the almanac", "almanac", "checkbox", true, "yes"],
].map(([label, name, role, value, submitted]) => ({
  label: label as string,
  name: name as string,
  role: role as Field["role"],
  value: value as string | boolean,
  submitted: (submitted ?? value) as string,
}));

/** Where a peer acts: the element's role and label, and the ref the peer's last read gave it. */
export interface Target {
  role: string;
  label: string;
  ref: string;
}

/**
 * What the bench asks of a peer. Each method is one call of the peer's own tool (or, for the
 * raw-CDP floor, the CDP commands that do the same); `probe` is an untimed look at the page
 * through the peer's script tool, used only to check a step.
 */
export interface Driver {
  navigate(url: string): Promise<Answer>;
  /** The peer's structured read of the page (outline, snapshot). */
  read(): Promise<Answer>;
  /** The peer's way to read the page's text (its text tool, else its snapshot). */
  readText(): Promise<Answer>;
  /** Clicks `target`; `navigates` tells the floor to wait for the load it causes. */
  click(target: Target, navigates: boolean): Promise<Answer>;
  /** Types `text` into `target`, which the previous click focused. */
  type(target: Target, text: string): Promise<Answer>;
  /** Sets one field. */
  fill(target: Target, field: Field): Promise<Answer>;
  screenshot(): Promise<Answer>;
  /** Evaluates `expression` in the page and returns the peer's whole answer as text. */
  probe(expression: string): Promise<string>;
  /** Searches the page for `query`, if the peer has such a tool. */
  find: ((query: string) => Promise<Answer>) | null;
  /**
   * Fills many fields in one call, if the peer has such a tool; null with the reason when it
   * has not.
   */
  fillAll: ((fields: { target: Target; field: Field }[]) => Promise<Answer>) | string;
  /** The ref the peer's read `answer` gives the element with `role` and `label`, or null. */
  refOf(answer: Answer, role: string, label: string): string | null;
}

/** One step of one round of one peer. */
export interface StepResult {
  step: string;
  /** Wall time of the call as the client saw it; null when the step was not attempted. */
  ms: number | null;
  textChars: number;
  imageChars: number;
  ok: boolean;
  /** Why it failed or was skipped. */
  note?: string;
  /** Set for a step the peer cannot take (no such tool): not a failure. */
  skipped?: boolean;
}

/** The journey's steps, in order; the total is over these. */
export const JOURNEY_STEPS: string[] = [
  "navigate_form",
  "read_form",
  "click_field",
  "type_field",
  ...FILLED_FIELDS.map((field) => `fill:${field.name}`),
  "submit",
  "read_confirmation",
  "screenshot",
  "navigate_frames",
  "read_frames",
  "click_shadow",
];

/** Steps measured after the journey, outside its total. */
export const EXTRA_STEPS: string[] = ["navigate_rows", "read_rows", "find_row", "form_fill_all"];

/** Longest any one call may take before the step counts as failed. */
export const STEP_MS = 60_000;

/** A probe's answer carries `BENCH key=value ... BENCH` however the peer wraps it. */
const PROBE = /BENCH((?: [\w-]+=[^\s]*)*) BENCH/;

function parseProbe(text: string): Record<string, string> | null {
  const match = text.match(PROBE);
  if (!match) return null;
  const out: Record<string, string> = {};
  for (const pair of match[1].trim().split(" ").filter(Boolean)) {
    const at = pair.indexOf("=");
    out[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1));
  }
  return out;
}

/** Page script for the probe after the shadow click: the bell's counters and where we are. */
const BELL_PROBE = "(() => { const p = window.bellPresses || { all: -1, trusted: -1 }; " +
  "return 'BENCH all=' + p.all + ' trusted=' + p.trusted + ' path=' + " +
  "encodeURIComponent(location.pathname) + ' BENCH'; })()";

/** Page script for the probe after form_fill_all: every named field's current value. */
const FORM_PROBE = "(() => { const d = new FormData(document.getElementById('register')); " +
  "return 'BENCH ' + [...d.entries()].filter(([k]) => k !== '_log' && k !== 'run')" +
  ".map(([k, v]) => k + '=' + encodeURIComponent(String(v))).join(' ') + ' BENCH'; })()";

const PNG = "iVBORw0KGgo";
const JPEG = "/9j/";
const WEBP = "UklGR";

/** What one journey found: a result per step, and what the checks saw (for the JSON). */
export interface JourneyResult {
  steps: StepResult[];
  /** The submission the server received, and the probes' answers. */
  evidence: Record<string, unknown>;
}

/** Runs the journey once on `driver`; every step gets a result, failed or not. */
export async function runJourney(
  driver: Driver,
  fixtures: FixtureServer,
  runId: string,
): Promise<JourneyResult> {
  const results = new Map<string, StepResult>();
  const evidence: Record<string, unknown> = {};
  const refs = new Map<string, string>();

  const timed = async (
    step: string,
    call: () => Promise<Answer>,
    check: (answer: Answer) => string | null = () => null,
  ): Promise<Answer | null> => {
    const started = performance.now();
    let answer: Answer;
    try {
      answer = await within(call(), STEP_MS, step);
    } catch (error) {
      results.set(step, {
        step,
        ms: performance.now() - started,
        textChars: 0,
        imageChars: 0,
        ok: false,
        note: `call failed: ${(error as Error).message}`.slice(0, 300),
      });
      return null;
    }
    const ms = performance.now() - started;
    const problem = answer.isError
      ? `error result: ${answer.text.replace(/\s+/g, " ").slice(0, 200)}`
      : check(answer);
    results.set(step, {
      step,
      ms,
      textChars: answer.textChars,
      imageChars: answer.imageChars,
      ok: problem === null,
      ...(problem === null ? {} : { note: problem }),
    });
    return answer;
  };
  const notAttempted = (step: string, why: string) =>
    results.set(step, { step, ms: null, textChars: 0, imageChars: 0, ok: false, note: why });
  const target = (role: string, label: string): Target | null => {
    const ref = refs.get(`${role} ${label}`);
    return ref === undefined ? null : { role, label, ref };
  };
  const remember = (answer: Answer | null, wanted: [string, string][]): string[] => {
    const missing: string[] = [];
    for (const [role, label] of wanted) {
      const ref = answer ? driver.refOf(answer, role, label) : null;
      if (ref === null) missing.push(`${role} "${label}"`);
      else refs.set(`${role} ${label}`, ref);
    }
    return missing;
  };

  // The form.
  await timed(
    "navigate_form",
    () => driver.navigate(fixtures.url(`/bench_form.html?run=${runId}`)),
  );
  const formControls: [string, string][] = [
    [TYPED_FIELD.role, TYPED_FIELD.label],
    ...FILLED_FIELDS.map((field): [string, string] => [field.role, field.label]),
    ["button", "Register"],
  ];
  await timed("read_form", () => driver.read(), (answer) => {
    const missing = remember(answer, formControls);
    return missing.length === 0 ? null : `no ref in the read for ${missing.join(", ")}`;
  });
  const typedTarget = target(TYPED_FIELD.role, TYPED_FIELD.label);
  if (typedTarget) {
    await timed("click_field", () => driver.click(typedTarget, false));
    await timed("type_field", () => driver.type(typedTarget, TYPED_FIELD.value as string));
  } else {
    notAttempted("click_field", "the read gave no ref for the field");
    notAttempted("type_field", "the read gave no ref for the field");
  }
  for (const field of FILLED_FIELDS) {
    const fieldTarget = target(field.role, field.label);
    if (fieldTarget) await timed(`fill:${field.name}`, () => driver.fill(fieldTarget, field));
    else notAttempted(`fill:${field.name}`, "the read gave no ref for the field");
  }
  const submitTarget = target("button", "Register");
  let submission: FormSubmission | undefined;
  const findSubmission = () =>
    fixtures.submissions().find((s): s is FormSubmission =>
      "fields" in s && s.fields.run === runId
    );
  if (submitTarget) {
    await timed("submit", () => driver.click(submitTarget, true));
    // The POST reaches the server before the confirmation page can load; a peer that answered
    // before its click took effect gets a bounded grace here, outside the timing.
    await waitFor(() => Promise.resolve(findSubmission() !== undefined), "the submission", 10_000)
      .catch(() => {});
    submission = findSubmission();
    evidence.submission = submission ?? null;
    checkSubmission(results, submission);
  } else {
    notAttempted("submit", "the read gave no ref for the Register button");
  }
  await timed(
    "read_confirmation",
    () => driver.readText(),
    (answer) =>
      submission === undefined
        ? "the server received no submission"
        : answer.text.includes(submission.code)
        ? null
        : `the answer does not show the confirmation code ${submission.code}`,
  );
  await timed("screenshot", () => driver.screenshot(), (answer) => {
    const image = answer.images[0];
    if (!image) return "no image in the answer";
    return [PNG, JPEG, WEBP].some((magic) => image.data.startsWith(magic))
      ? null
      : `the image is not a PNG, JPEG or WebP (${image.mimeType})`;
  });

  // Frames and a shadow root.
  await timed("navigate_frames", () => driver.navigate(fixtures.url("/bench_frames.html")));
  await timed("read_frames", () => driver.read(), (answer) => {
    const missing = remember(answer, [["button", "Ring the harbour bell"]]);
    if (missing.length > 0) return `no ref in the read for ${missing.join(", ")}`;
    return answer.text.includes("Stamp entry")
      ? null
      : "the read does not show the iframe's button";
  });
  const bell = target("button", "Ring the harbour bell");
  if (bell) {
    await timed("click_shadow", () => driver.click(bell, false));
    const step = results.get("click_shadow")!;
    if (step.ok) {
      const seen = parseProbe(await within(driver.probe(BELL_PROBE), STEP_MS, "the probe"));
      evidence.bell = seen;
      if (seen === null) fail(step, "the probe's answer could not be read");
      else if (seen.path !== "/bench_frames.html") fail(step, `the tab is at ${seen.path}`);
      else if (seen.all !== "1" || seen.trusted !== "1") {
        fail(step, `the page counted ${seen.all} presses, ${seen.trusted} of them real input`);
      }
    }
  } else {
    notAttempted("click_shadow", "the read gave no ref for the shadow button");
  }

  // The big page, outside the journey's total.
  await timed("navigate_rows", () => driver.navigate(fixtures.url("/rows.html")));
  await timed(
    "read_rows",
    () => driver.read(),
    (answer) => answer.text.includes('"Open 1"') ? null : "the read does not show the first row",
  );
  if (driver.find) {
    const find = driver.find;
    await timed("find_row", () => find("Open 1234"), (answer) => {
      const first = answer.text.split("\n").find((line) => /Open \d+/.test(line)) ?? "";
      return /"?Open 1234"?(?!\d)/.test(first) ? null : `the first match is ${first.trim()}`;
    });
  } else {
    results.set("find_row", skip("find_row", "no search tool"));
  }

  // Every field in one call, where the peer can.
  if (typeof driver.fillAll === "string") {
    results.set("form_fill_all", skip("form_fill_all", driver.fillAll));
  } else {
    const fillAll = driver.fillAll;
    await untimed(() => driver.navigate(fixtures.url(`/bench_form.html?run=${runId}-all`)));
    const read = await untimed(() => driver.read());
    const missing = remember(read, FILLED_FIELDS.map((f): [string, string] => [f.role, f.label]));
    if (missing.length > 0) {
      notAttempted("form_fill_all", `no ref in the read for ${missing.join(", ")}`);
    } else {
      const fields = FILLED_FIELDS.map((field) => ({
        field,
        target: target(field.role, field.label)!,
      }));
      await timed("form_fill_all", () => fillAll(fields));
      const step = results.get("form_fill_all")!;
      if (step.ok) {
        const seen = parseProbe(await within(driver.probe(FORM_PROBE), STEP_MS, "the probe"));
        evidence.formFillAll = seen;
        const wrong = FILLED_FIELDS.filter((f) => (seen?.[f.name] ?? "") !== f.submitted);
        if (seen === null) fail(step, "the probe's answer could not be read");
        else if (wrong.length > 0) {
          fail(step, `wrong values: ${wrong.map((f) => `${f.name}=${seen[f.name]}`).join(", ")}`);
        }
      }
    }
  }

  const steps = [...JOURNEY_STEPS, ...EXTRA_STEPS].map((step) =>
    results.get(step) ?? { step, ms: null, textChars: 0, imageChars: 0, ok: false, note: "lost" }
  );
  return { steps, evidence };
}

async function untimed(call: () => Promise<Answer>): Promise<Answer | null> {
  try {
    return await within(call(), STEP_MS, "an untimed step");
  } catch {
    return null;
  }
}

function skip(step: string, why: string): StepResult {
  return { step, ms: null, textChars: 0, imageChars: 0, ok: false, skipped: true, note: why };
}

function fail(step: StepResult, why: string): void {
  step.ok = false;
  step.note = why;
}

/**
 * What the server received decides the form steps: the click focused the field by real input,
 * the typed text and every filled value arrived, and each fill fired the events a framework
 * listens to.
 */
function checkSubmission(results: Map<string, StepResult>, submission: FormSubmission | undefined) {
  const submit = results.get("submit")!;
  if (submission === undefined) {
    fail(submit, "the server received no submission");
    for (
      const step of [
        "click_field",
        "type_field",
        ...FILLED_FIELDS.map((f) => `fill:${f.name}`),
      ]
    ) {
      const result = results.get(step);
      if (result?.ok) fail(result, "not checked: nothing was submitted");
    }
    return;
  }
  const log = (submission.fields._log ?? "").split(" ");
  const click = results.get("click_field");
  if (click?.ok && !log.includes(`${TYPED_FIELD.name}:click`)) {
    fail(click, "the page saw no real click on the field");
  }
  const typed = results.get("type_field");
  if (typed?.ok && submission.fields[TYPED_FIELD.name] !== TYPED_FIELD.submitted) {
    fail(typed, `the server received ${JSON.stringify(submission.fields[TYPED_FIELD.name])}`);
  }
  for (const field of FILLED_FIELDS) {
    const result = results.get(`fill:${field.name}`);
    if (!result?.ok) continue;
    const got = submission.fields[field.name] ?? "";
    if (got !== field.submitted) fail(result, `the server received ${JSON.stringify(got)}`);
    else if (
      !log.some((entry) =>
        /^[^:]+:(input|change)/.test(entry) && entry.startsWith(`${field.name}:`)
      )
    ) {
      fail(result, "the page saw no input or change event for it");
    }
  }
}
