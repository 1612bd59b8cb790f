import { assert, assertEquals, assertRejects } from "../../tests/support/assert.ts";
import { entryScript, startPlan, writeEntryScript } from "./start_plan.ts";

const HOME = "/home/u";

Deno.test("a plan pins the variables its paths came from, and the login runtime folder", () => {
  const env: Record<string, string> = { HOME, XDG_STATE_HOME: "/s", PATH: "/bin" };
  const plan = startPlan("try", (key) => env[key], {
    install: { kind: "source", deno: "/d/deno", root: "/src" },
    loginRuntimeDir: "/run/user/1000",
  });
  assertEquals(plan.env, { HOME, XDG_STATE_HOME: "/s", XDG_RUNTIME_DIR: "/run/user/1000" });
  assertEquals(plan.paths.runtimeDir, "/run/user/1000/ghostlight-try");
  assertEquals(plan.paths.cacheDir, "/home/u/.cache/ghostlight-try");
});

Deno.test("a path with a comma is refused: Deno's flags could not name it", async () => {
  await assertRejects(
    () =>
      Promise.resolve().then(() =>
        startPlan(null, (key) => ({ HOME: "/home/a,b" })[key], {
          install: { kind: "compiled", dir: "/opt" },
        })
      ),
    /contains a comma/,
  );
});

Deno.test("the service entry passes on only the pinned paths, the instance and its settings", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A stand-in for deno that shows what it was given.
    const fake = `${dir}/deno`;
    await Deno.writeTextFile(fake, '#!/bin/sh\nenv | sort\necho "ARGS $*"\n', { mode: 0o755 });
    const plan = startPlan("try", (key) => ({ HOME: dir })[key], {
      install: { kind: "source", deno: fake, root: "/src" },
      serviceEntry: `${dir}/ghostlight`,
    });
    await writeEntryScript(plan.serviceEntry!, entryScript("service", plan));
    assertEquals((await Deno.stat(plan.serviceEntry!)).mode! & 0o777, 0o700);
    const output = await new Deno.Command(plan.serviceEntry!, {
      args: ["--allow-all", "service"],
      env: {
        DENO_V8_FLAGS: "--expose-gc",
        DENO_DIR: "/elsewhere",
        GHOSTLIGHT_IDLE_EXIT_MS: "500",
        GHOSTLIGHT_INSTANCE: "other",
      },
      clearEnv: true,
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    const lines = text.trim().split("\n");
    const env = lines.filter((line) => !line.startsWith("ARGS ") && !line.startsWith("PWD="));
    assertEquals(env, [
      "GHOSTLIGHT_IDLE_EXIT_MS=500",
      "GHOSTLIGHT_INSTANCE=try",
      `HOME=${dir}`,
    ]);
    const args = lines.find((line) => line.startsWith("ARGS "))!;
    assert(args.endsWith("/src/service/main.ts --allow-all service"), args);
    assert(args.includes("-P=service --config /src/deno.json --allow-read="), args);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
