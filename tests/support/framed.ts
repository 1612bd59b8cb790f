/**
 * Pages that frame another site: opening one and waiting until its frame has loaded (the fixture
 * sets `data-framed="loaded"` on its body).
 */

import type { E2ESession } from "./session.ts";
import { pollUntil } from "./wait.ts";

/** Opens `url` in the session's first tab and waits until its frame has loaded. */
export async function openFramed(s: E2ESession, url: string): Promise<number> {
  const tabId = await s.firstTab();
  await s.ok("navigate", { url, tabId });
  await pollUntil(
    () =>
      s.ok("javascript_tool", {
        action: "javascript_exec",
        text: "document.body.dataset.framed ?? ''",
        tabId,
      }),
    (result) => /loaded/.test(s.text(result)),
    "the framed page to load",
  );
  return tabId;
}
