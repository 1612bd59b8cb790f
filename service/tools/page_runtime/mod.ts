/**
 * The page runtime: the script Ghostlight installs in each frame's isolated world (made with
 * `Page.createIsolatedWorld`, so the page's own scripts can neither see nor change it). It keeps
 * the element registry behind refs, walks the DOM into an outline, describes and measures
 * elements, sets form values and observes actions for receipts. Secret field values are
 * redacted here, before they leave the browser.
 *
 * This folder runs in the browser: its files are checked against the DOM, not Deno.
 * `deno task build:page` bundles this entry into `service/tools/page/runtime_bundle.ts`, the
 * source the service sends; `deno task check` fails while that file is stale.
 *
 * @module
 */

import { type Runtime, runtime } from "./api.ts";
import { reportWorld } from "./page_info.ts";
import { adopt, follow, token } from "./registry.ts";
import { watchSecrets } from "./secrets.ts";

declare global {
  var __ghostlight: Runtime | undefined;
}

/**
 * The runtime with each method, and its token, following the window to the document it shows
 * first (see `follow`): every call from the service begins in the document it means, and the
 * token the service reads as it makes a world is that document's.
 */
function following(methods: Runtime): Runtime {
  const followed: Record<string, unknown> = { ...methods };
  for (const [name, method] of Object.entries(methods)) {
    if (typeof method !== "function") continue;
    followed[name] = (...args: unknown[]) => {
      follow();
      return method(...args);
    };
  }
  Object.defineProperty(followed, "token", {
    get: () => {
      follow();
      return token;
    },
    enumerable: true,
  });
  return followed as unknown as Runtime;
}

// A world keeps the runtime it has: its registry's numbers are the refs already handed out.
if (!globalThis.__ghostlight) {
  adopt();
  watchSecrets();
  reportWorld();
  globalThis.__ghostlight = following(runtime);
}
