import { assertEquals, assertRejects } from "../tests/support/assert.ts";
import { resolveInstancePaths } from "./instance.ts";
import {
  FIRST_LAUNCH_MAX_BYTES,
  FIRST_LAUNCH_MAX_ITEMS,
  type FirstLaunch,
  firstLaunchFile,
  readFirstLaunch,
  writeFirstLaunch,
} from "./first_launch.ts";

const RECORD: FirstLaunch = {
  at: "2026-12-06T11:00:00.000Z",
  prefix: "/home/someone/.local/share/ghostlight",
  extension: "/home/someone/.local/share/ghostlight/extension",
  setUp: [{ target: "chromium", status: "added", detail: "native host registered" }],
};

async function withPaths(body: (paths: ReturnType<typeof resolveInstancePaths>) => Promise<void>) {
  const home = await Deno.makeTempDir();
  try {
    await body(resolveInstancePaths(null, (key) => key === "HOME" ? home : undefined));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("the first launch's record is written owner-only and read back; none reads as null", () =>
  withPaths(async (paths) => {
    assertEquals(await readFirstLaunch(paths), null);
    writeFirstLaunch(paths, RECORD);
    assertEquals(await readFirstLaunch(paths), RECORD);
    assertEquals((await Deno.stat(firstLaunchFile(paths))).mode! & 0o777, 0o600);
  }));

Deno.test("a record past its bounds is neither written nor read", () =>
  withPaths(async (paths) => {
    const item = RECORD.setUp[0];
    const many = { ...RECORD, setUp: Array(FIRST_LAUNCH_MAX_ITEMS + 1).fill(item) };
    await assertRejects(
      () => Promise.resolve().then(() => writeFirstLaunch(paths, many)),
      /<=16 items/,
    );
    const long = { ...RECORD, prefix: "x".repeat(501) };
    await assertRejects(
      () => Promise.resolve().then(() => writeFirstLaunch(paths, long)),
      /<=500 characters/,
    );
    assertEquals(await readFirstLaunch(paths), null);
    await Deno.mkdir(paths.stateDir, { recursive: true });
    await Deno.writeTextFile(firstLaunchFile(paths), " ".repeat(FIRST_LAUNCH_MAX_BYTES + 1));
    await assertRejects(() => readFirstLaunch(paths), /more than the/);
  }));

Deno.test("a record that is not one, or a link, is refused with its name", () =>
  withPaths(async (paths) => {
    await Deno.mkdir(paths.stateDir, { recursive: true });
    const file = firstLaunchFile(paths);
    await Deno.writeTextFile(file, JSON.stringify({ ...RECORD, extra: 1 }));
    await assertRejects(() => readFirstLaunch(paths), /is not a first launch's record/);
    await Deno.writeTextFile(file, "{");
    await assertRejects(() => readFirstLaunch(paths), /is not JSON/);
    await Deno.remove(file);
    await Deno.writeTextFile(`${paths.stateDir}/elsewhere`, JSON.stringify(RECORD));
    await Deno.symlink(`${paths.stateDir}/elsewhere`, file);
    await assertRejects(() => readFirstLaunch(paths), /symbolic link/);
  }));
