/**
 * `script`'s references: a step's argument that is exactly `$prev.path` or `$N.path` takes the
 * value at that path in an earlier step's result (`$1` is the first step). A path walks the
 * step's structured result by keys and indexes (`$2.matches.0.ref`, `$1.tabs[0].tabId`); `text`
 * is the step's text when its structured result has no such key. Only whole strings are
 * references, so text that merely contains a dollar sign is left alone. Pure functions.
 *
 * @module
 */

/** What an earlier step left for later ones. */
export interface StepResult {
  /** Its structured result; absent for a step that failed. */
  structured?: Record<string, unknown>;
  text: string;
  ok: boolean;
}

/** A reference that cannot be resolved, with why. */
export class ReferenceProblem extends Error {}

const REFERENCE = /^\$(prev|\d+)((?:\.[^.[\]\s]+|\[\d+\])*)$/;

/** Whether a value is a reference string. */
export function isReference(value: unknown): value is string {
  return typeof value === "string" && REFERENCE.test(value);
}

/** The path segments of a reference: `$2.matches[0].ref` → ["matches", "0", "ref"]. */
function segments(path: string): string[] {
  return [...path.matchAll(/\.([^.[\]\s]+)|\[(\d+)\]/g)].map((m) => m[1] ?? m[2]);
}

function keysOf(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).slice(0, 12);
    return keys.length ? `keys ${keys.join(", ")}` : "no keys";
  }
  return JSON.stringify(value);
}

/** The value a reference names, for step `current` (1-based) of a run with `results` so far. */
export function resolveReference(reference: string, results: StepResult[], current: number) {
  const [, which, path] = REFERENCE.exec(reference)!;
  const step = which === "prev" ? current - 1 : Number(which);
  if (step < 1 || step >= current) {
    throw new ReferenceProblem(
      `${reference} refers to step ${step}, but only steps before this one (${current}) have ` +
        "results",
    );
  }
  const result = results[step - 1];
  if (!result.ok) throw new ReferenceProblem(`${reference} refers to step ${step}, which failed`);
  let value: unknown = result.structured ?? {};
  let walked = `$${step}`;
  for (const [index, segment] of segments(path).entries()) {
    const here = value as Record<string, unknown> | unknown[] | null;
    // Own keys only: "constructor" and "__proto__" are in every object, not in a result.
    const next = here !== null && typeof here === "object" && Object.hasOwn(here, segment)
      ? (here as Record<string, unknown>)[segment]
      : undefined;
    if (next === undefined && index === 0 && segment === "text") value = result.text;
    else if (next === undefined) {
      throw new ReferenceProblem(
        `${reference}: ${walked} has no "${segment}" (it has ${keysOf(value)})`,
      );
    } else value = next;
    walked += `.${segment}`;
  }
  return value;
}

/** `args` with every reference in it (at any depth) replaced by the value it names. */
export function resolveReferences(
  args: Record<string, unknown>,
  results: StepResult[],
  current: number,
): Record<string, unknown> {
  const walk = (value: unknown): unknown => {
    if (isReference(value)) return resolveReference(value, results, current);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]));
    }
    return value;
  };
  return walk(args) as Record<string, unknown>;
}

/** The dotted paths of `args` that hold references (`target.ref`), for a check before running. */
export function referencePaths(args: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (isReference(value)) paths.push(path);
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key);
    }
  };
  walk(args, "");
  return paths;
}

/** `args` without the fields that hold references, for checking what is known before a run. */
export function withoutReferences(args: Record<string, unknown>): Record<string, unknown> {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.filter((item) => !isReference(item)).map(walk);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).filter(([, item]) => !isReference(item))
          .map(([key, item]) => [key, walk(item)]),
      );
    }
    return value;
  };
  return walk(args) as Record<string, unknown>;
}
