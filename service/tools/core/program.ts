/**
 * A page program: the one message an action sends to the page, declared as named steps (each a
 * CDP command) that use earlier steps' replies by name, and named conditions that decide whether
 * a step goes out. {@linkcode compile} turns it into the extension's `cdp.sequence` commands,
 * where a reply is named by how many commands back it is (`objectIdFrom`, `sendIf`,
 * `paramsFrom`, decisions 0205, 0239, 0241): the offsets are counted in that one function, never
 * by hand. The builder's types make a reference to a step not yet declared a compile error; the
 * compiler throws for one the types could not see (a name made at run time).
 *
 * @module
 */

import {
  MAX_REPLY_VALUES,
  type ReplyTest,
  type SequenceCommand,
} from "../../../shared/browser_protocol.ts";

/** A value in the reply of the step named `step`, at `path` through it. */
export interface Ref<S extends string = string> {
  readonly step: S;
  readonly path: readonly string[];
}

/** A test of an earlier step's reply value: it equals a primitive, or (a list) lacks some. */
export type Test<S extends string = string> =
  | { value: Ref<S>; equals: string | number | boolean }
  | { value: Ref<S>; lacks: { field: string; values: string[] } };

/** Names a value of an earlier step's reply (only steps declared before can be named). */
export type At<S extends string> = <N extends S>(step: N, ...path: string[]) => Ref<N>;

/** One step: a CDP command, whose params may hold {@linkcode Ref}s (filled from replies). */
export interface Step<S extends string = string, C extends string = string> {
  method: string;
  params: Record<string, unknown>;
  /** The step whose reply's `result.objectId` becomes this command's `objectId`. */
  objectOf?: S;
  /** Conditions that must all hold for the step to go out. */
  when?: readonly C[];
  /** Goes out only once every earlier step replied (it sees what they did). */
  afterAll?: true;
}

/** What the program could not compile: a step or condition named wrongly. */
export class ProgramError extends Error {}

interface Declared {
  name: string;
  step: Step;
}

/**
 * A page program being declared. Each method answers a new program with one more step or
 * condition; `S` and `C` are the names declared so far, which later steps may use.
 */
export class PageProgram<S extends string = never, C extends string = never> {
  constructor(
    readonly steps: readonly Declared[] = [],
    readonly conditions: ReadonlyMap<string, readonly Test[]> = new Map(),
    readonly leading: number = 0,
  ) {}

  /** Adds a step named `name`; `make` names earlier steps' values through `at`. */
  step<N extends string>(
    name: N & (N extends S ? never : N),
    make: (at: At<S>) => Step<S, C>,
  ): PageProgram<S | N, C> {
    // References are symbolic: `at` only names them, and compile checks them.
    const step = make(refOnly as At<S>) as Step;
    return new PageProgram<S | N, C>(
      [...this.steps, { name, step }],
      this.conditions,
      this.leading,
    );
  }

  /** Adds one step per command `make` answers, named `name 1`, `name 2`, ... (never named back). */
  each(name: string, make: (at: At<S>) => Step<S, C>[]): PageProgram<S, C> {
    const steps = (make(refOnly as At<S>) as Step[]).map((step, i) => ({
      name: `${name} ${i + 1}`,
      step,
    }));
    return new PageProgram<S, C>([...this.steps, ...steps], this.conditions, this.leading);
  }

  /** Adds a condition named `name`: every test holds. Steps name it in their `when`. */
  condition<N extends string>(
    name: N & (N extends C ? never : N),
    make: (at: At<S>) => Test<S>[],
  ): PageProgram<S, C | N> {
    const conditions = new Map(this.conditions);
    conditions.set(name, make(refOnly as At<S>) as Test[]);
    return new PageProgram<S, C | N>(this.steps, conditions, this.leading);
  }

  /** Marks the steps so far as the lead: their replies come back ahead of the rest. */
  lead(): PageProgram<S, C> {
    return new PageProgram<S, C>(this.steps, this.conditions, this.steps.length);
  }
}

/** A new, empty page program. */
export function program(): PageProgram {
  return new PageProgram();
}

function refOnly(step: string, ...path: string[]): Ref {
  return { step, path };
}

/** A page program as the extension takes it, with each step's place by name. */
export interface Compiled<S extends string = string> {
  commands: SequenceCommand[];
  /** How many of the first commands are the lead (0: none). */
  lead: number;
  /** The place of step `name` in `commands`. */
  indexOf(name: S): number;
  /** Step `name`'s reply among `replies` (the message's replies, in order). */
  reply(name: S, replies: readonly Record<string, unknown>[]): Record<string, unknown>;
}

function isRef(value: unknown): value is Ref {
  return typeof value === "object" && value !== null && "step" in value && "path" in value &&
    Array.isArray((value as Ref).path) && Object.keys(value).length === 2;
}

/** Where the refs in `params` are (dotted paths), and the params without them. */
function splitParams(
  params: Record<string, unknown>,
  prefix = "",
): { plain: Record<string, unknown>; refs: { param: string; ref: Ref }[] } {
  const plain: Record<string, unknown> = {};
  const refs: { param: string; ref: Ref }[] = [];
  for (const [key, value] of Object.entries(params)) {
    const param = prefix ? `${prefix}.${key}` : key;
    if (isRef(value)) {
      refs.push({ param, ref: value });
    } else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const inner = splitParams(value as Record<string, unknown>, param);
      refs.push(...inner.refs);
      if (Object.keys(inner.plain).length > 0 || inner.refs.length === 0) plain[key] = inner.plain;
    } else {
      plain[key] = value;
    }
  }
  return { plain, refs };
}

/**
 * The one place reply offsets are counted: each step's references to earlier steps (by name)
 * become `objectIdFrom`, `sendIf` and `paramsFrom` entries that count back from it. Throws a
 * {@linkcode ProgramError} for a name that is not an earlier step, an unknown condition, a
 * repeated name, or a step that names more values than the extension takes.
 */
export function compile<S extends string, C extends string>(
  declared: PageProgram<S, C>,
): Compiled<S> {
  const places = new Map<string, number>();
  const commands: SequenceCommand[] = [];
  declared.steps.forEach(({ name, step }, index) => {
    if (places.has(name)) throw new ProgramError(`step "${name}" is declared twice`);
    const back = (ref: Ref, use: string): number => {
      const at = places.get(ref.step);
      if (at === undefined) {
        throw new ProgramError(`step "${name}" ${use} "${ref.step}", which is not an earlier step`);
      }
      return index - at;
    };
    const { plain, refs } = splitParams(step.params);
    const sendIf: ReplyTest[] = (step.when ?? []).flatMap((condition) => {
      const tests = declared.conditions.get(condition);
      if (!tests) {
        throw new ProgramError(`step "${name}" waits on unknown condition "${condition}"`);
      }
      return tests.map(({ value, ...test }) =>
        ({
          ...test,
          reply: back(value, `tests, in condition "${condition}",`),
          path: [...value.path],
        }) as ReplyTest
      );
    });
    const paramsFrom = refs.map(({ param, ref }) => ({
      reply: back(ref, "takes a value of"),
      path: [...ref.path],
      param,
    }));
    if (sendIf.length > MAX_REPLY_VALUES || paramsFrom.length > MAX_REPLY_VALUES) {
      throw new ProgramError(`step "${name}" names more than ${MAX_REPLY_VALUES} reply values`);
    }
    commands.push({
      method: step.method as SequenceCommand["method"],
      params: plain,
      ...(step.objectOf !== undefined
        ? { objectIdFrom: back({ step: step.objectOf, path: [] }, "asks about the object of") }
        : {}),
      ...(step.afterAll ? { afterReplies: true as const } : {}),
      ...(sendIf.length > 0 ? { sendIf } : {}),
      ...(paramsFrom.length > 0 ? { paramsFrom } : {}),
    });
    places.set(name, index);
  });
  const indexOf = (name: S): number => {
    const at = places.get(name);
    if (at === undefined) throw new ProgramError(`no step "${name}"`);
    return at;
  };
  return {
    commands,
    lead: declared.leading,
    indexOf,
    reply: (name, replies) => replies[indexOf(name)] ?? {},
  };
}
