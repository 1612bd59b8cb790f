import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { makeTestEnv } from "../../tests/support/env.ts";
import { resolveInstancePaths } from "../../shared/instance.ts";
import { autostartPlan } from "./autostart.ts";
import { checkAutostart } from "./doctor.ts";
import type { Host } from "./host.ts";
import { installLayout } from "./layout.ts";
import type { Receipt } from "./receipt.ts";

Deno.test("doctor checks the remote shores' login entry of a sources install, not of a compiled one", async () => {
  const testEnv = await makeTestEnv("doc");
  try {
    const host: Host = { platform: "linux", env: (key) => testEnv.env[key] };
    const layout = installLayout(host, resolveInstancePaths(testEnv.instance, host.env));
    const receipt = (mode: Receipt["mode"]): Receipt => ({
      receipt: 1,
      version: "0",
      instance: testEnv.instance,
      mode,
      extension: { id: "x", version: "0", dir: layout.extensionDir },
      files: [],
      links: [],
      dirs: [],
      clients: [],
      browsers: [],
      registry: [],
      autostart: true,
      backups: [],
    });
    const context = (mode: Receipt["mode"]) => ({
      host,
      layout,
      receipt: receipt(mode),
      cli: "ghostlight",
    });
    // Only the service's entry is written: the shores' is missing from a sources install.
    const service = autostartPlan({ host, layout });
    if (service.kind !== "files") throw new Error("a linux plan writes files");
    for (const file of [service.file, service.enable!]) {
      await Deno.mkdir(file.path.slice(0, file.path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(file.path, file.text);
    }
    const sources = await checkAutostart(context("sources"));
    assertEquals(sources.map((finding) => finding.status), ["ok", "ok", "problem", "problem"]);
    assertMatch(sources[2].message, /-remotes\.service is missing or changed$/);
    assertMatch(sources[2].fix ?? "", /run 'ghostlight install'/);
    const compiled = await checkAutostart(context("compiled"));
    assertEquals(compiled.map((finding) => finding.status), ["ok", "ok"]);
  } finally {
    await testEnv.dispose();
  }
});
