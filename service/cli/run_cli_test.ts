import { assertEquals } from "../../tests/support/assert.ts";
import { readServiceSettings } from "../settings.ts";
import { runCli } from "./run_cli.ts";

/** Runs the command line with stderr muted; returns the exit code and what it said. */
async function run(argv: string[], role: "service" | "installer") {
  const said: string[] = [];
  const error = console.error;
  console.error = (...parts: unknown[]) => said.push(parts.join(" "));
  try {
    const code = await runCli(argv, readServiceSettings(() => undefined), role);
    return { code, said: said.join("\n") };
  } finally {
    console.error = error;
  }
}

Deno.test("the service's entry runs no admin command; the installer's runs nothing else", async () => {
  for (const command of ["install", "uninstall", "doctor"]) {
    const refused = await run([command], "service");
    assertEquals(refused.code, 2, command);
    assertEquals(refused.said.includes("runs as the installer"), true, refused.said);
  }
  for (const argv of [["service"], ["status"], ["browser", "launch"]]) {
    const refused = await run(argv, "installer");
    assertEquals(refused.code, 2, argv.join(" "));
    assertEquals(refused.said.includes("this entry runs only install"), true, refused.said);
  }
});

Deno.test("a command named like a property of every object is unknown, not a person's control", async () => {
  for (const command of ["constructor", "toString", "__proto__"]) {
    const refused = await run(["--instance", "nowhere", command], "service");
    assertEquals(refused.code, 2, refused.said);
    assertEquals(refused.said.includes(`unknown command "${command}"`), true, refused.said);
  }
});

Deno.test({
  name: "a command that may not reach the instance's sockets says so, not 'not running'",
  permissions: { env: true, read: false, write: false, net: false },
  fn: async () => {
    for (const command of [["status"], ["hold"], ["stop"], ["browser", "launch", "--headless"]]) {
      const refused = await run(["--instance", "other", ...command], "service");
      assertEquals(refused.code, 2, refused.said);
      assertEquals(refused.said.includes("run ghostlight-other"), true, refused.said);
      assertEquals(refused.said.includes("not running"), false, refused.said);
    }
  },
});
