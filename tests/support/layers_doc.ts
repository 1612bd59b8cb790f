/**
 * `docs/architecture.md`'s layer tables from `layers.ts`: the service's folders, and the folders
 * inside `service/tools/`, each with what it owns and what it may import, between two markers.
 * The architecture test compares the page with these rows; `scripts/architecture_doc.ts` writes
 * them.
 *
 * @module
 */

import { z } from "zod";
import * as declared from "./layers.ts";

/** Where the architecture page lives. */
export const ARCHITECTURE_DOC: URL = new URL("../../docs/architecture.md", import.meta.url);

/** The marker kind of the page's generated tables (`<!-- layers:service -->`). */
export const LAYERS_KIND = "layers";

const Layers = z.record(z.string(), z.array(z.string()));
const Owns = z.record(z.string(), z.string());

/** What `layers.ts` exports, as the tables read it: the tools' layers are optional. */
const LayerData = z.object({
  SERVICE_LAYERS: Layers,
  SERVICE_OWNS: Owns,
  TOOL_LAYERS: Layers.optional(),
  TOOL_OWNS: Owns,
});

/** One generated table: its section name, its column heads and its rows. */
export interface LayerTable {
  section: string;
  columns: string[];
  rows: string[][];
}

function code(text: string): string {
  return `\`${text}\``;
}

/** Rows of folder, owns and (when the layers are declared) may-import; throws on a gap. */
function rows(
  name: string,
  owns: Record<string, string>,
  layers: Record<string, string[]> | undefined,
): string[][] {
  const folders = Object.keys(layers ?? owns);
  const unexplained = folders.filter((folder) => !(folder in owns));
  const stale = Object.keys(owns).filter((folder) => !folders.includes(folder));
  if (unexplained.length > 0 || stale.length > 0) {
    throw new Error(
      `${name} in tests/support/layers.ts: ` +
        [
          ...unexplained.map((folder) => `${folder} has no prose: add what it owns`),
          ...stale.map((folder) => `${folder} is not a layer: remove its prose`),
        ].join("; "),
    );
  }
  return folders.map((folder) => {
    const row = [code(`${folder}/`), owns[folder]];
    if (!layers) return row;
    const allowed = layers[folder];
    return [...row, allowed.length === 0 ? "—" : allowed.map(code).join(", ")];
  });
}

/** The page's layer tables from a module shaped like `layers.ts` (the real one by default). */
export function layerTables(source: Record<string, unknown> = { ...declared }): LayerTable[] {
  const data = LayerData.parse(source);
  return [
    {
      section: "service",
      columns: ["folder", "owns", "may import"],
      rows: rows("SERVICE_OWNS", data.SERVICE_OWNS, data.SERVICE_LAYERS),
    },
    {
      section: "tools",
      columns: data.TOOL_LAYERS ? ["folder", "owns", "may import"] : ["folder", "owns"],
      rows: rows("TOOL_OWNS", data.TOOL_OWNS, data.TOOL_LAYERS),
    },
  ];
}

/** A table as markdown. */
export function markdownTable(table: LayerTable): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(table.columns), line(table.columns.map(() => "---")), ...table.rows.map(line)]
    .join("\n");
}
