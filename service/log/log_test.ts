import { assert, assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { loggedEvents } from "./events.ts";
import { configureLog, log, logSafe, MAX_LOG_MESSAGE } from "./log.ts";

Deno.test("the log file is owner-only, one line per event, and rotated past 4 MiB", async () => {
  const root = await Deno.makeTempDir();
  const file = `${root}/service.log`;
  try {
    configureLog({ file, stderr: false });
    log("info", "first");
    assertMatch(await Deno.readTextFile(file), /^\d{4}-\d\d-\d\dT[\d:.]+Z info first\n$/);
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600);

    await Deno.writeTextFile(file, "x".repeat(4 * 1024 * 1024 + 1));
    log("warn", "after rotation");
    assert((await Deno.stat(`${file}.1`)).size > 4 * 1024 * 1024, "the full log moved to .1");
    assertMatch(await Deno.readTextFile(file), /^\S+ warn after rotation\n$/);
  } finally {
    configureLog({ file: null, stderr: true });
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("logging never throws, even when its file cannot be written", () => {
  configureLog({ file: "/nonexistent-folder/service.log", stderr: false });
  try {
    log("error", "nowhere to go");
  } finally {
    configureLog({ file: null, stderr: true });
  }
});

Deno.test("a message is one line: control characters and backslashes are escaped", () => {
  assertEquals(logSafe("a\nb\rc\u2028d\\e\x1b[31m"), "a\\u000ab\\u000dc\\u2028d\\\\e\\u001b[31m");
});

Deno.test("a message is kept whole at MAX_LOG_MESSAGE and cut one past it", () => {
  const atBound = "v".repeat(MAX_LOG_MESSAGE);
  assertEquals(logSafe(atBound), atBound);
  assertEquals(logSafe(`${atBound}w`), `${atBound}… (1 more cut)`);
});

Deno.test("a peer's words cannot forge a log line or pad the log", async () => {
  const root = await Deno.makeTempDir();
  const file = `${root}/service.log`;
  try {
    configureLog({ file, stderr: false });
    log("info", `extension 1.0\n${new Date().toISOString()} error forged${"x".repeat(200_000)}`);
    const text = await Deno.readTextFile(file);
    assertEquals(text.split("\n").length, 2, "one line and its newline");
    assert(text.length < MAX_LOG_MESSAGE + 100, `${text.length} characters`);
  } finally {
    configureLog({ file: null, stderr: true });
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the log is never written through a link", async () => {
  const root = await Deno.makeTempDir();
  const outside = await Deno.makeTempFile();
  try {
    await Deno.symlink(outside, `${root}/service.log`);
    configureLog({ file: `${root}/service.log`, stderr: false });
    log("info", "should not land anywhere");
    assertEquals(await Deno.readTextFile(outside), "");
  } finally {
    configureLog({ file: null, stderr: true });
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside);
  }
});

Deno.test("a line carries a record a reader reads by its schema, whatever the words say", async () => {
  const root = await Deno.makeTempDir();
  const file = `${root}/service.log`;
  try {
    configureLog({ file, stderr: false });
    log("info", "an extension came in, in any words", {
      event: "browser_attached",
      slot: 2,
      extension: "1.4.0",
    });
    // A peer's text in a message cannot forge a record: its tab is escaped into the words.
    log("info", `attached\t{"event":"browser_attached","slot":9,"extension":"forged"}`);
    // A record its schema refuses is not written; the line still is.
    log("info", "odd", { event: "browser_attached", slot: -1, extension: "x" });
    const text = await Deno.readTextFile(file);
    assertEquals(text.split("\n").length, 4);
    const hellos = loggedEvents(text, "browser_attached");
    assertEquals(hellos.map(({ slot, extension }) => ({ slot, extension })), [
      { slot: 2, extension: "1.4.0" },
    ]);
    assertMatch(hellos[0].at, /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    // A line that is not the service's shape is passed over.
    assertEquals(loggedEvents('nonsense\t{"event":"browser_attached"}\n', "browser_attached"), []);
  } finally {
    configureLog({ file: null, stderr: true });
    await Deno.remove(root, { recursive: true });
  }
});
