import { documentedRows, SETTINGS_DOC, settingsRows } from "../shared/settings_doc.ts";
import { assertEquals } from "../tests/support/assert.ts";
import { DEFAULT_SCHEDULER_OPTIONS } from "./scheduler/mod.ts";
import { readServiceSettings, ServiceSettings } from "./settings.ts";

const only = (values: Record<string, string>) => (key: string) => values[key];

Deno.test("an unparseable idle setting means the default, never 'never exit'", () => {
  const idle = (raw: string | undefined) =>
    readServiceSettings(only(raw === undefined ? {} : { GHOSTLIGHT_IDLE_EXIT_MS: raw })).idleExitMs;
  assertEquals(idle("1500"), 1500);
  for (const raw of [undefined, "", "abc", "-5", "0", "1.5", "Infinity", "1e300"]) {
    assertEquals(idle(raw), 30_000, String(raw));
  }
});

Deno.test("each service setting comes from its own variable; a bad one leaves the others", () => {
  assertEquals(
    readServiceSettings(only({
      GHOSTLIGHT_INSTANCE: "try",
      GHOSTLIGHT_IDLE_EXIT_MS: "500",
      GHOSTLIGHT_QUEUE_DEADLINE_MS: "1500",
      GHOSTLIGHT_WORKSPACE_GRACE_MS: "soon",
      GHOSTLIGHT_SETTLEMENT_MS: "3500",
      GHOSTLIGHT_ATTENTION_DENIALS: "0",
      GHOSTLIGHT_AUDIT_MAX_BYTES: "65536",
      GHOSTLIGHT_ASK_TIMEOUT_MS: "2500",
    })),
    {
      instance: "try",
      idleExitMs: 500,
      queueDeadlineMs: 1500,
      workspaceGraceMs: 60_000,
      settlementMs: 3500,
      attentionAfter: 5,
      askTimeoutMs: 2500,
      askSettleMs: 700,
      policyReloadMs: 1000,
      auditMaxBytes: 65536,
      auditKeepFiles: 10,
    },
  );
});

Deno.test("the popup's settle time outside 300 ms to 10 s means the default: never no guard, never no answers", () => {
  const settle = (raw: string) =>
    readServiceSettings(only({ GHOSTLIGHT_ASK_SETTLE_MS: raw })).askSettleMs;
  assertEquals(settle("3000"), 3000);
  for (const raw of ["0", "1", "299", "10001", "600000", "soon"]) {
    assertEquals(settle(raw), 700, raw);
  }
});

Deno.test("a delay too long for a timer means the default, not a timer that fires at once", () => {
  const settings = readServiceSettings(only({ GHOSTLIGHT_SETTLEMENT_MS: "2147483648" }));
  assertEquals(settings.settlementMs, 180_000);
});

Deno.test("the scheduler's own queue deadline is the setting's default", () => {
  // The scheduler keeps a default for callers that build one by hand (its tests).
  assertEquals(
    readServiceSettings(() => undefined).queueDeadlineMs,
    DEFAULT_SCHEDULER_OPTIONS.queueDeadlineMs,
  );
});

Deno.test("docs/settings.md lists the service's settings exactly as the schema declares them", async () => {
  const documented = documentedRows(await Deno.readTextFile(SETTINGS_DOC), "service");
  assertEquals(
    documented,
    settingsRows(ServiceSettings),
    "docs/settings.md disagrees with service/settings.ts; run 'deno run -A scripts/settings_doc.ts'",
  );
});
