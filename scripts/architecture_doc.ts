/**
 * Rewrites the layer tables of `docs/architecture.md` from `tests/support/layers.ts`, then formats
 * the page. `tests/architecture_test.ts` fails until this has been run after a change of layers.
 *
 * @module
 */

import { withSection } from "../shared/settings_doc.ts";
import {
  ARCHITECTURE_DOC,
  LAYERS_KIND,
  layerTables,
  markdownTable,
} from "../tests/support/layers_doc.ts";

if (import.meta.main) {
  let page = await Deno.readTextFile(ARCHITECTURE_DOC);
  for (const table of layerTables()) {
    page = withSection(page, table.section, markdownTable(table), LAYERS_KIND);
  }
  await Deno.writeTextFile(ARCHITECTURE_DOC, page);
  const formatted = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "-q", ARCHITECTURE_DOC.pathname],
  }).output();
  if (!formatted.success) throw new Error(new TextDecoder().decode(formatted.stderr));
}
