import { assert, assertEquals, assertRejects } from "../../tests/support/assert.ts";
import {
  cliScript,
  cliStartOf,
  entryScript,
  startCommand,
  startPlan,
  writeEntryScript,
} from "./start_plan.ts";

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

Deno.test("the person's ghostlight starts each command line as cliStartOf says", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const fake = `${dir}/deno`;
    await Deno.writeTextFile(fake, '#!/bin/sh\necho "$*"\n', { mode: 0o755 });
    const plan = startPlan("try", (key) => ({ HOME: dir })[key], {
      install: { kind: "source", deno: fake, root: "/src" },
      serviceEntry: `${dir}/entry`,
    });
    const script = `${dir}/ghostlight`;
    await writeEntryScript(script, cliScript(plan));
    const lines = [
      ["install", "--client", "cursor"],
      ["--instance", "try", "uninstall"],
      ["--instance=try", "doctor", "--json"],
      ["-h", "install"],
      ["doctor"],
      ["browser", "launch", "--url", "doctor"],
      ["--instance", "install", "status"],
      ["service", "--exit-when-idle"],
      ["version"],
      [],
    ];
    for (const argv of lines) {
      const ran = await new Deno.Command(script, { args: argv, clearEnv: true }).output();
      const { start, options } = cliStartOf(argv);
      const { args } = startCommand(start, plan, options);
      assertEquals(
        new TextDecoder().decode(ran.stdout).trim(),
        [...args, ...argv].join(" "),
        argv.join(" "),
      );
    }
    assertEquals(cliStartOf(["doctor"]), { start: "installer", options: { doctor: true } });
    assertEquals(cliStartOf(["install"]), { start: "installer", options: { doctor: false } });
    assertEquals(cliStartOf(["browser", "launch"]).options, { browserLaunch: true });
    assertEquals(cliStartOf(["--instance", "install", "status"]).start, "service");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a service entry where the service may write is refused", async () => {
  const env = (key: string) => ({ HOME: "/home/u" })[key];
  for (const entry of ["/home/u/.local/state/ghostlight/entry", "/home/u/.config/ghostlight/x"]) {
    await assertRejects(
      () =>
        Promise.resolve().then(() =>
          startPlan(null, env, { install: { kind: "compiled", dir: "/opt" }, serviceEntry: entry })
        ),
      /which the service may write/,
    );
  }
  const fine = startPlan(null, env, {
    install: { kind: "compiled", dir: "/opt" },
    serviceEntry: "/home/u/.local/share/ghostlight/service-entry",
  });
  assertEquals(fine.serviceEntry, "/home/u/.local/share/ghostlight/service-entry");
});
