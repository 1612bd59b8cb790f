/**
 * Checks tool arguments against the contract's input schemas. The schemas use a small subset
 * of JSON Schema (types, properties, required, additionalProperties, enum, items, bounds), so a
 * small checker whose messages name the field serves agents better than a general validator.
 *
 * @module
 */

type Schema = Record<string, unknown>;

/** The first problem found, phrased for the model, or null when the arguments are valid. */
export function firstArgumentProblem(schema: Schema, value: unknown): string | null {
  return check(schema, value, "");
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(expected: string, value: unknown): boolean {
  const actual = typeOf(value);
  if (expected === "number") return actual === "number" || actual === "integer";
  return expected === actual;
}

function describeField(path: string): string {
  return path === "" ? "the arguments" : `"${path}"`;
}

function check(schema: Schema, value: unknown, path: string): string | null {
  const field = describeField(path);
  const type = schema.type as string | string[] | undefined;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (!types.some((t) => matchesType(t, value))) {
      return `${field} must be ${types.join(" or ")}, not ${typeOf(value)}`;
    }
  }
  if (typeof value === "number" && !Number.isFinite(value)) return `${field} must be finite`;
  const allowed = schema.enum as unknown[] | undefined;
  if (allowed && !allowed.includes(value)) {
    return `${field} must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      return `${field} must be at least ${schema.minimum}`;
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      return `${field} must be at most ${schema.maximum}`;
    }
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) {
      return `${field} must have at least ${schema.minLength} characters`;
    }
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) {
      return `${field} must have at most ${schema.maxLength} characters`;
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      return `${field} must have at least ${schema.minItems} items`;
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      return `${field} must have at most ${schema.maxItems} items`;
    }
    const items = schema.items as Schema | undefined;
    if (items) {
      for (let i = 0; i < value.length; i++) {
        const problem = check(items, value[i], `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  if (typeOf(value) === "object") {
    return checkObject(schema, value as Record<string, unknown>, path) ??
      checkConditions(schema, value as Record<string, unknown>, path);
  }
  return null;
}

/** A condition as words: `"action" is "respond"`. */
function describeCondition(condition: Schema): string {
  const properties = (condition.properties ?? {}) as Record<string, Schema>;
  const parts = Object.entries(properties).map(([name, rule]) =>
    "const" in rule ? `"${name}" is ${JSON.stringify(rule.const)}` : `"${name}" is given`
  );
  return parts.join(" and ") || "this applies";
}

/** Whether a value meets a condition schema (`const`, `required`, nested properties). */
function meets(condition: Schema, value: Record<string, unknown>): boolean {
  for (const name of (condition.required ?? []) as string[]) {
    if (value[name] === undefined) return false;
  }
  const properties = (condition.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties).every(([name, rule]) =>
    value[name] === undefined || !("const" in rule) || value[name] === rule.const
  );
}

/**
 * `allOf` of `if`/`then`/`else` branches, as dialog uses them ("text" only with "respond"): the
 * branch that applies must hold, and its problem names the condition.
 */
function checkConditions(
  schema: Schema,
  value: Record<string, unknown>,
  path: string,
): string | null {
  const prefix = path === "" ? "" : `${path}.`;
  for (const part of (schema.allOf ?? []) as Schema[]) {
    if (!part.if) continue;
    const condition = part.if as Schema;
    const applies = meets(condition, value);
    const branch = (applies ? part.then : part.else) as Schema | undefined;
    if (!branch) continue;
    const when = `${applies ? "when" : "unless"} ${describeCondition(condition)}`;
    const missing = ((branch.required ?? []) as string[]).find((name) => value[name] === undefined);
    if (missing) return `"${prefix}${missing}" is required ${when}`;
    const forbidden = ((branch.not as Schema | undefined)?.required ?? []) as string[];
    if (forbidden.length > 0 && forbidden.every((name) => value[name] !== undefined)) {
      return `"${prefix}${forbidden.join('", "')}" must not be given ${when}`;
    }
  }
  return null;
}

/** Names agents use for a parameter that is spelled otherwise here. */
const ALIASES: Record<string, string[]> = {
  text: ["key", "keys", "value", "input", "string"],
  coordinate: ["coordinates", "coords", "point", "position", "xy"],
  url: ["href", "link", "address"],
  query: ["q", "search"],
};

/** The known parameter an unknown name most likely meant (tab_id → tabId, key → text). */
function meant(name: string, known: string[]): string | undefined {
  const plain = (text: string) => text.toLowerCase().replace(/[_\-\s]/g, "");
  const same = known.find((candidate) => plain(candidate) === plain(name));
  if (same) return same;
  return known.find((candidate) => ALIASES[candidate]?.includes(plain(name)));
}

function checkObject(schema: Schema, value: Record<string, unknown>, path: string): string | null {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const prefix = path === "" ? "" : `${path}.`;
  const known = Object.keys(properties);
  // Own names only, on both sides: "constructor" is in every object.
  const unknown = Object.keys(value).filter((name) => !Object.hasOwn(properties, name));
  for (const name of (schema.required ?? []) as string[]) {
    if (!Object.hasOwn(value, name) || value[name] === undefined) {
      const expected = properties[name]?.type;
      const shown = Array.isArray(expected) ? expected.join(" or ") : expected ?? "a value";
      const lookalike = unknown.find((other) => meant(other, known) === name);
      const hint = lookalike
        ? `; "${prefix}${lookalike}" is not a parameter: did you mean "${prefix}${name}"?`
        : "";
      return `"${prefix}${name}" is required (${shown})${hint}`;
    }
  }
  const count = Object.keys(value).length;
  if (typeof schema.minProperties === "number" && count < schema.minProperties) {
    return `${describeField(path)} must have at least ${schema.minProperties} entries`;
  }
  for (const [name, item] of Object.entries(value)) {
    const propertySchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (propertySchema) {
      const problem = check(propertySchema, item, `${prefix}${name}`);
      if (problem) return problem;
      continue;
    }
    const extra = schema.additionalProperties;
    if (extra === false) {
      const guess = meant(name, known);
      return `"${prefix}${name}" is not a parameter here` +
        (guess ? `: did you mean "${prefix}${guess}"?` : "") +
        (known.length ? ` (known: ${known.join(", ")})` : " (this tool takes none)");
    }
    if (typeof extra === "object" && extra !== null) {
      const problem = check(extra as Schema, item, `${prefix}${name}`);
      if (problem) return problem;
    }
  }
  return null;
}
