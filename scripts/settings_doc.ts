/**
 * Rewrites the tables of `docs/settings.md` from the three settings schemas, then formats the
 * page. Each executable's `settings_test.ts` fails until this has been run after a change.
 *
 * @module
 */

import { BrowserConnectorSettings } from "../browser_connector/settings.ts";
import { ConnectorSettings } from "../mcp_connector/settings.ts";
import { ServiceSettings } from "../service/settings.ts";
import type { Executable } from "../shared/executables.ts";
import { SETTINGS_DOC, settingsTable, withSection } from "../shared/settings_doc.ts";

const SCHEMAS = {
  "service": ServiceSettings,
  "mcp-connector": ConnectorSettings,
  "browser-connector": BrowserConnectorSettings,
} satisfies Record<Executable, unknown>;

if (import.meta.main) {
  let page = await Deno.readTextFile(SETTINGS_DOC);
  for (const [section, schema] of Object.entries(SCHEMAS)) {
    page = withSection(page, section, settingsTable(schema));
  }
  await Deno.writeTextFile(SETTINGS_DOC, page);
  const formatted = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "-q", SETTINGS_DOC.pathname],
  }).output();
  if (!formatted.success) throw new Error(new TextDecoder().decode(formatted.stderr));
}
