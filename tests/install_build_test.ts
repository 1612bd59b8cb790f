/**
 * `deno task build`: five targets, each executable under its own permission set, `DENORT_BIN`
 * honoured for one target, and one sentence when no runtime can be had.
 */

import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";
import { ROOT } from "./support/env.ts";
import { chooseTargets, compileSteps, missingRuntime, TARGETS } from "../scripts/compile.ts";

Deno.test("every target gets the three executables, each with its own permission set", () => {
  assertEquals(Object.keys(TARGETS), [
    "linux-x64",
    "linux-arm64",
    "macos-x64",
    "macos-arm64",
    "windows-x64",
  ]);
  for (const target of Object.keys(TARGETS) as (keyof typeof TARGETS)[]) {
    const steps = compileSteps(target, "/out");
    assertEquals(
      steps.map((step) => [step.output, step.args.find((arg) => arg.startsWith("-P="))]),
      ["ghostlight", "ghostlight-mcp-connector", "ghostlight-browser-connector"].map((name, i) => [
        `/out/${target}/${name}${target.startsWith("windows") ? ".exe" : ""}`,
        `-P=${["service", "mcp-connector", "browser-connector"][i]}`,
      ]),
    );
    for (const step of steps) {
      assertEquals(step.args[step.args.indexOf("--target") + 1], TARGETS[target]);
    }
    assert(steps[0].args.includes(`${ROOT}/extension/dist`), "the service carries the extension");
  }
});

Deno.test("DENORT_BIN builds one target: this machine's, or the one named", async () => {
  assertEquals(chooseTargets(undefined, undefined).length, 5);
  assertEquals(chooseTargets("all", undefined).length, 5);
  assertEquals(chooseTargets("macos-arm64", "/r/denort"), ["macos-arm64"]);
  assertEquals(chooseTargets(undefined, "/r/denort").length, 1);
  await assertRejects(
    () => Promise.resolve().then(() => chooseTargets("all", "/r/denort")),
    /one runtime for one target/,
  );
  await assertRejects(
    () => Promise.resolve().then(() => chooseTargets("solaris", undefined)),
    /--target takes all or one of/,
  );
});

Deno.test("a runtime that cannot be had stops the build with one sentence", async () => {
  assert(missingRuntime("error sending request for url (https://dl.deno.land/release/v2.9.6/x)"));
  assert(!missingRuntime("TS2345 [ERROR]: Argument of type"));
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/compile.ts`],
    env: { DENORT_BIN: `${ROOT}/no-such-denort` },
  }).output();
  assertEquals(run.code, 1);
  const lines = new TextDecoder().decode(run.stderr).trim().split("\n");
  assertEquals(lines.length, 1, lines.join("\n"));
  assertMatch(lines[0], /^deno task build stopped: DENORT_BIN names .*, which is not a file\.$/);
});
