/**
 * `deno task build`: five targets, each executable (and the installer and doctor) under its own
 * permission set, an install's build with its user's flags, `DENORT_BIN` honoured for one
 * target, and one sentence when no runtime can be had.
 */

import { assert, assertEquals, assertMatch, assertRejects } from "./support/assert.ts";
import { makeTestEnv, ROOT } from "./support/env.ts";
import { chooseTargets, compileSteps, missingRuntime, TARGETS } from "../scripts/compile.ts";
import { permissionFlags, startPlan } from "../service/privilege/mod.ts";

const NAMES = [
  "ghostlight",
  "ghostlight-mcp-connector",
  "ghostlight-browser-connector",
  "ghostlight-installer",
  "ghostlight-doctor",
];
const SETS = ["service", "mcp-connector", "browser-connector", "installer", "installer"];

Deno.test("every target gets the three executables, the installer and doctor, each under its set", () => {
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
      NAMES.map((name, i) => [
        `/out/${target}/${name}${target.startsWith("windows") ? ".exe" : ""}`,
        `-P=${SETS[i]}`,
      ]),
    );
    // A build for everyone carries no user's folders.
    assert(steps.every((step) => !step.args.some((arg) => arg.startsWith("--allow-"))));
    for (const step of steps) {
      assertEquals(step.args[step.args.indexOf("--target") + 1], TARGETS[target]);
    }
    assert(steps[0].args.includes(`${ROOT}/extension/dist`), "the service carries the extension");
    assert(steps[3].args.includes(`${ROOT}/extension/dist`), "so does the installer");
  }
});

Deno.test("an install's build carries each program's flags for its user's instance", async () => {
  const testEnv = await makeTestEnv("inst");
  try {
    const plan = startPlan(testEnv.instance, (key) => testEnv.env[key], {
      install: { kind: "compiled", dir: `${testEnv.home}/.local/share/gl/libexec` },
      serviceEntry: `${testEnv.home}/.local/share/gl/service-entry`,
    });
    const steps = compileSteps("linux-x64", "/out", plan);
    const expected = [
      permissionFlags("service", plan),
      permissionFlags("mcp-connector", plan),
      permissionFlags("browser-connector", plan),
      permissionFlags("installer", plan),
      permissionFlags("installer", plan, { doctor: true }),
    ];
    steps.forEach((step, i) => {
      const at = step.args.indexOf(`-P=${SETS[i]}`) + 3; // after the set and --config FILE
      assertEquals(step.args.slice(at, at + expected[i].length), expected[i], NAMES[i]);
    });
    // Only the connector and doctor may run the service entry, which only the installer writes.
    assert(steps[1].args.includes(`--allow-run=${plan.serviceEntry}`));
    assert(steps[4].args.includes(`--allow-run=${plan.serviceEntry}`));
    assert(!steps[3].args.some((arg) => arg.startsWith("--allow-run")));
  } finally {
    await testEnv.dispose();
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
