import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { redactSecrets } from "./redact.ts";

Deno.test("secret-looking strings are redacted, ordinary text is kept", () => {
  const cases: [string, string][] = [
    ["key sk_live_4eC39HqLyjWDarjtT1zdp7dc9Xa here", "key [redacted] here"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[redacted]"],
    [
      "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0",
      "Bearer [redacted]",
    ],
    ['{"password": "hunter2!", "user": "ada"}', '{"password": "[redacted]", "user": "ada"}'],
    ["api_key='abcd1234'", "api_key='[redacted]'"],
    ["a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8", "[redacted]"],
    ["order 550e8400-e29b-41d4-a716-446655440000", "order 550e8400-e29b-41d4-a716-446655440000"],
    ["Lamp check number 2500 done", "Lamp check number 2500 done"],
    ["the-annual-lighthouse-keepers-report-2024", "the-annual-lighthouse-keepers-report-2024"],
    ["/products/item-12345/reviews?page=2", "/products/item-12345/reviews?page=2"],
  ];
  for (const [input, expected] of cases) assertEquals(redactSecrets(input), expected, input);
});

Deno.test("a private key block is redacted whole; an unclosed one is left", () => {
  const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----";
  assertEquals(redactSecrets(`a ${key} b ${key} c`), "a [redacted] b [redacted] c");
  assertEquals(redactSecrets("-----BEGIN PRIVATE KEY----- x"), "-----BEGIN PRIVATE KEY----- x");
});

Deno.test("redaction takes time linear in the text, whatever the page puts in it", () => {
  // Each of these once made a pattern retry a long run from each of its characters: 20k
  // characters took half a second, 200k nearly a minute, on the service's only event loop.
  const size = 200_000;
  const hostile: Record<string, string> = {
    "one long word": "a".repeat(size),
    "secret keys without values": "password".repeat(size / 8),
    "an unclosed quoted value": 'password="' + "x".repeat(size),
    "token-like starts that never finish": "eyJ-".repeat(size / 4),
    "private key begins without an end": "-----BEGIN PRIVATE KEY-----".repeat(size / 27),
  };
  for (const [name, text] of Object.entries(hostile)) {
    const started = performance.now();
    redactSecrets(text);
    const took = performance.now() - started;
    // Linear work on 200k characters takes milliseconds; the bound is generous for a busy box.
    assert(took < 1_500, `${name}: ${Math.round(took)} ms`);
  }
});
