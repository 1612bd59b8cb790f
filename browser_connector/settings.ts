/**
 * The browser connector's settings: every environment variable `ghostlight-browser-connector`
 * reads. It is a pipe with fixed bounds, so it has only the instance to find. `main.ts` reads
 * them once at start-up.
 *
 * @module
 */

import { z } from "zod";
import type { EnvReader } from "../shared/instance.ts";
import { instanceSetting, readSettings } from "../shared/settings.ts";

/** The schema of the browser connector's settings. */
export const BrowserConnectorSettings = z.object({
  instance: instanceSetting(),
});
export type BrowserConnectorSettings = z.infer<typeof BrowserConnectorSettings>;

/** Reads the browser connector's settings from `env` (the process environment, in `main.ts`). */
export function readBrowserConnectorSettings(env: EnvReader): BrowserConnectorSettings {
  return readSettings(BrowserConnectorSettings, env);
}
