/**
 * Pages that frame another site: opening one and waiting until its frame has loaded (the fixture
 * sets `data-framed="loaded"` on its body), and refusing the frame's host once it has (the tab's
 * request filter would stop it loading at all).
 */

import { ghostlight } from "./processes.ts";
import type { E2ESession } from "./session.ts";
import { pollUntil } from "./wait.ts";

/**
 * Writes the person's policy and waits until the service has it in force, as explain tells; a
 * file that holds `policy` already is left as it is (a test sharing its session with others puts
 * its own policy in force first, whatever the one before it left).
 */
export async function usePolicy(s: E2ESession, policy: string): Promise<void> {
  const out = await ghostlight(s.testEnv, ["paths", "--json"]);
  const file = JSON.parse(out.stdout).policyFile as string;
  if (await Deno.readTextFile(file).catch(() => null) === policy) return;
  const explained = async () => s.text(await s.ok("explain", {}));
  const before = await explained();
  await Deno.writeTextFile(file, policy);
  await pollUntil(explained, (now) => now !== before, "the service to take the new policy");
}

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
