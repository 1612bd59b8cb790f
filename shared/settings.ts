/**
 * How an executable declares and reads its settings. Each executable has one zod object (its
 * `settings.ts`) whose fields carry, in their metadata, the environment variable they come from
 * and what they mean; their defaults and bounds are the schema's own. `main` reads the
 * environment through it once, at start-up, and passes the typed result down; the same schema
 * renders `docs/settings.md`.
 *
 * Shared because the rule for a bad value is one rule for every process: a duration that is
 * unset, empty, unparseable or out of bounds means its default, so a typo can never switch a
 * bound off (an idle service that never exits, a call that never times out).
 *
 * @module
 */

import { z } from "zod";
import type { EnvReader } from "./instance.ts";

/** The longest delay a timer can hold (2^31 − 1 ms); a longer one would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** What every setting's metadata holds. */
export const SettingMeta = z.object({
  /** The environment variable it is read from. */
  env: z.string().regex(/^GHOSTLIGHT_[A-Z_]+$/),
  /** One line for `docs/settings.md`. */
  description: z.string().min(1),
  /** The unit of a number, for `docs/settings.md` (`ms`, `bytes`, ...). */
  unit: z.string().optional(),
});
export type SettingMeta = z.infer<typeof SettingMeta>;

/** A duration setting: a whole number of milliseconds from 1 to {@linkcode MAX_TIMER_MS}. */
export function durationMs(
  env: string,
  options: { default: number; description: string },
): z.ZodCatch<z.ZodCoercedNumber<unknown>> {
  return z.coerce.number().int().min(1).max(MAX_TIMER_MS).catch(options.default).meta({
    env,
    description: options.description,
    unit: "ms",
  });
}

/**
 * A count or a size: a whole number within bounds, in `unit`. Like a duration, a value that is
 * unset, empty, unparseable or out of bounds means the default.
 */
export function wholeNumber(
  env: string,
  options: { default: number; min: number; max: number; unit: string; description: string },
): z.ZodCatch<z.ZodCoercedNumber<unknown>> {
  return z.coerce.number().int().min(options.min).max(options.max).catch(options.default).meta({
    env,
    description: options.description,
    unit: options.unit,
  });
}

/**
 * `GHOSTLIGHT_INSTANCE`, read by every executable: `--instance` overrides it. An invalid name is
 * an error at start-up (from `parseInstance`), never silently another instance.
 */
export function instanceSetting(): z.ZodOptional<z.ZodString> {
  return z.string().optional().meta({
    env: "GHOSTLIGHT_INSTANCE",
    description: "the instance to use when `--instance` is not given: `[a-z][a-z0-9-]{0,31}`, " +
      "not `default`; unset or empty means the default instance",
  });
}

/** The metadata of the settings field `name`; throws when it has none, or not a valid one. */
export function settingMeta(name: string, field: z.ZodType): SettingMeta {
  const meta = SettingMeta.safeParse(field.meta());
  if (!meta.success) {
    throw new Error(
      `the setting '${name}' names no GHOSTLIGHT_ variable and description; declare it with ` +
        "durationMs() or .meta({ env, description })",
    );
  }
  return meta.data;
}

/** The environment variables `schema` reads, in field order. */
export function settingVariables<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
): string[] {
  return Object.entries(schema.shape).map(([name, field]) =>
    settingMeta(name, field as z.ZodType).env
  );
}

/** Reads every field of `schema` from its environment variable through `env`. */
export function readSettings<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  env: EnvReader,
): z.infer<z.ZodObject<Shape>> {
  const raw: Record<string, string | undefined> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    raw[name] = env(settingMeta(name, field as z.ZodType).env);
  }
  return schema.parse(raw);
}
