import { assertEquals } from "../../../tests/support/assert.ts";
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
