import { documentedRows, SETTINGS_DOC, settingsRows } from "../shared/settings_doc.ts";
import { assertEquals } from "../tests/support/assert.ts";
import { connectorRestriction } from "./calls.ts";
import { ConnectorSettings, readConnectorSettings } from "./settings.ts";

const only = (values: Record<string, string>) => (key: string) => values[key];

Deno.test("the connector's timings come from their variables; anything unparseable is the default", () => {
  assertEquals(readConnectorSettings(() => undefined), {
    instance: undefined,
    callDeadlineMs: 60_000,
    progressIntervalMs: 5_000,
    clientStallMs: 60_000,
    remoteReconnectMs: 500,
    remoteRequestMs: 180_000,
    remoteSetupMs: 30_000,
    restrictCapabilities: undefined,
    restrictHosts: undefined,
  });
  assertEquals(
    readConnectorSettings(only({
      GHOSTLIGHT_CALL_DEADLINE_MS: "1500",
      GHOSTLIGHT_PROGRESS_INTERVAL_MS: "400",
    })),
    {
      instance: undefined,
      callDeadlineMs: 1500,
      progressIntervalMs: 400,
      clientStallMs: 60_000,
      remoteReconnectMs: 500,
      remoteRequestMs: 180_000,
      remoteSetupMs: 30_000,
      restrictCapabilities: undefined,
      restrictHosts: undefined,
    },
  );
  for (const raw of ["", "abc", "-5", "0", "1.5", "Infinity", "2147483648"]) {
    const settings = readConnectorSettings(
      only({ GHOSTLIGHT_CALL_DEADLINE_MS: raw, GHOSTLIGHT_PROGRESS_INTERVAL_MS: raw }),
    );
    assertEquals([settings.callDeadlineMs, settings.progressIntervalMs], [60_000, 5_000], raw);
  }
});

Deno.test("a connector restriction is read as lists; unset or empty means none", () => {
  const settings = readConnectorSettings(only({
    GHOSTLIGHT_RESTRICT_CAPABILITIES: " read, action ,",
    GHOSTLIGHT_RESTRICT_HOSTS: "",
  }));
  assertEquals(settings.restrictCapabilities, ["read", "action"]);
  assertEquals(settings.restrictHosts, undefined);
  assertEquals(connectorRestriction(settings), {
    source: "this connector's GHOSTLIGHT_RESTRICT_CAPABILITIES",
    capabilities: ["read", "action"],
  });
  assertEquals(connectorRestriction(readConnectorSettings(() => undefined)), null);
});

Deno.test("docs/settings.md lists the connector's settings exactly as the schema declares them", async () => {
  assertEquals(
    documentedRows(await Deno.readTextFile(SETTINGS_DOC), "mcp-connector"),
    settingsRows(ConnectorSettings),
    "docs/settings.md disagrees with mcp_connector/settings.ts; run " +
      "'deno run -A scripts/settings_doc.ts'",
  );
});
