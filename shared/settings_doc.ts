/**
 * `docs/settings.md` from the settings schemas: one table per executable between two markers,
 * rendered from each schema's JSON Schema (names, defaults, bounds, descriptions), so the page
 * cannot say something the code does not do. Used by each executable's settings test and by
 * `scripts/settings_doc.ts`; never loaded by a running executable.
 *
 * @module
 */

import { z } from "zod";
import { SettingMeta } from "./settings.ts";

/** The columns of every settings table. */
export const COLUMNS = ["variable", "default", "bounds", "meaning"] as const;

/** One setting as the JSON Schema of its field describes it. */
const Property = SettingMeta.extend({
  type: z.string().optional(),
  default: z.union([z.number(), z.string()]).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
});

const ObjectSchema = z.object({ properties: z.record(z.string(), Property) });

/** `2147483647` → `2 147 483 647`. */
function grouped(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

/** Wraps code in backticks for a table cell. */
function code(text: string): string {
  return `\`${text}\``;
}

/** The rows of `schema`'s table, in field order; cells as they read in the page. */
export function settingsRows(schema: z.ZodObject): string[][] {
  const { properties } = ObjectSchema.parse(z.toJSONSchema(schema, { io: "input" }));
  return Object.values(properties).map((property) => {
    const unit = property.unit ? ` ${property.unit}` : "";
    const bounds = property.minimum !== undefined && property.maximum !== undefined
      ? `${grouped(property.minimum)} to ${grouped(property.maximum)}${unit}`
      : "—";
    const fallback = property.default === undefined
      ? "unset"
      : typeof property.default === "number"
      ? `${grouped(property.default)}${unit}`
      : code(property.default);
    return [code(property.env), fallback, bounds, property.description];
  });
}

/** The markdown table of `schema`'s settings. */
export function settingsTable(schema: z.ZodObject): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(COLUMNS), line(COLUMNS.map(() => "---")), ...settingsRows(schema).map(line)]
    .join("\n");
}

/** The comments around a generated table; `kind` keeps other generated pages' tables apart. */
function markers(section: string, kind: string): { open: string; close: string } {
  return { open: `<!-- ${kind}:${section} -->`, close: `<!-- /${kind}:${section} -->` };
}

/**
 * The rows of the table the page holds for `section` (its header and rule left out), cells
 * trimmed; null when the page has no such section. Cells are compared, not bytes, so `deno fmt`
 * may align the table as it likes.
 */
export function documentedRows(
  markdown: string,
  section: string,
  kind = "settings",
): string[][] | null {
  const { open, close } = markers(section, kind);
  const start = markdown.indexOf(open);
  const end = markdown.indexOf(close);
  if (start < 0 || end < start) return null;
  return markdown.slice(start + open.length, end)
    .split("\n")
    .filter((line) => line.trim().startsWith("|"))
    .map((line) =>
      line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((cell) => cell.trim())
    )
    .slice(2);
}

/** `markdown` with the table of `section` replaced by `table`; throws when the markers are missing. */
export function withSection(
  markdown: string,
  section: string,
  table: string,
  kind = "settings",
): string {
  const { open, close } = markers(section, kind);
  const start = markdown.indexOf(open);
  const end = markdown.indexOf(close);
  if (start < 0 || end < start) {
    throw new Error(`the page has no ${open} … ${close} section; add the two markers`);
  }
  return `${markdown.slice(0, start + open.length)}\n\n${table}\n\n${markdown.slice(end)}`;
}

/** Where the settings page lives, from any module of the project. */
export const SETTINGS_DOC: URL = new URL("../docs/settings.md", import.meta.url);
