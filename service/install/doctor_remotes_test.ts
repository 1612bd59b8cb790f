import { assertEquals, assertMatch } from "../../tests/support/assert.ts";
import { remoteFindings } from "./doctor.ts";

Deno.test("doctor says each running remote: connected is ok, degraded is a problem with the next step", () => {
  const since = "2026-12-06T21:00:00.000Z";
  const findings = remoteFindings({
    remotes: [
      { name: "team", host: "agents.example.com:443", state: "connected", since },
      {
        name: "lab",
        host: "127.0.0.1:9",
        state: "degraded",
        why: "the agent host closed the connection (1001 \u001b[31mbye); reconnecting in 2.0 s",
        since,
      },
    ],
  });
  assertEquals(findings.map((finding) => finding.status), ["ok", "problem"]);
  assertMatch(findings[0].message, /^remote team: connected to agents\.example\.com:443/);
  assertMatch(findings[1].message, /^remote lab: degraded: the agent host closed .*reconnecting/);
  assertEquals(findings[1].message.includes("\u001b"), false, "no escape reaches the terminal");
  assertMatch(findings[1].fix ?? "", /check the agent host at 127\.0\.0\.1:9/);
  assertEquals(remoteFindings({}), []);
});
