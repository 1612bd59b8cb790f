import { assertEquals } from "../../../tests/support/assert.ts";
import {
  digestOf,
  keepDigests,
  MODULI,
  randomBase,
  redactByDigests,
  redactUrlByDigests,
  type SecretDigest,
} from "./secret_digest.ts";

/** The digests the page would send for these field values (as `secretDigests` builds them). */
function digests(values: string[], base: number): SecretDigest[] {
  return values.flatMap((value) => {
    const run = value.length >= 4 ? value : JSON.stringify(value);
    const [h1, h2] = digestOf(value, base, MODULI);
    const [r1, r2] = digestOf(run, base, MODULI);
    return [
      { length: value.length, h1, h2, match: "whole" as const },
      {
        length: run.length,
        h1: r1,
        h2: r2,
        match: value.length >= 4 ? "run" as const : "quoted" as const,
      },
    ];
  });
}

Deno.test("a secret is found wherever it stands, under any base", () => {
  for (let round = 0; round < 20; round++) {
    const base = randomBase();
    const found = digests(["hunter22", "ab1"], base);
    assertEquals(redactByDigests("hunter22", found, base), "[redacted]");
    assertEquals(
      redactByDigests('{"pw":"hunter22","pin":"ab1","x":"ab12"}', found, base),
      '{"pw":"[redacted]","pin":"[redacted]","x":"ab12"}',
    );
    assertEquals(redactByDigests("xhunter22hunter22y", found, base), "x[redacted][redacted]y");
    assertEquals(redactByDigests("ab1", found, base), "[redacted]", "a short value on its own");
    assertEquals(redactByDigests("cab1", found, base), "cab1", "a short value inside a word");
    assertEquals(redactByDigests("hunter2", found, base), "hunter2");
    assertEquals(redactByDigests("", found, base), "");
  }
});

Deno.test("overlapping secrets hide the union of both, never half of one", () => {
  const base = randomBase();
  const found = digests(["abcdef", "defghi"], base);
  assertEquals(redactByDigests("1abcdefghi2", found, base), "1[redacted]2");
});

Deno.test("the rolling hash agrees with hashing each window whole", () => {
  const base = randomBase();
  const text = "the quick brown fox jumps over the lazy dog ✓ éè";
  for (let length = 1; length <= 8; length++) {
    for (let start = 0; start + length <= text.length; start++) {
      const window = text.slice(start, start + length);
      const [h1, h2] = digestOf(window, base, MODULI);
      const out = redactByDigests(text, [{ length, h1, h2, match: "run" }], base);
      assertEquals(out.includes("[redacted]"), true, `window ${JSON.stringify(window)}`);
    }
  }
});

Deno.test("a secret sent in a URL is found encoded, in its path, query or fragment", () => {
  const base = randomBase();
  const found = digests(["Hunter 2@Fog!", "493817", "a&b"], base);
  const url = "https://a.test/in/Hunter%202%40Fog!/x?c=493817&p=Hunter+2%40Fog%21&q=a%26b#493817";
  assertEquals(
    redactUrlByDigests(url, found, base),
    "https://a.test/in/[redacted]/x?c=[redacted]&p=[redacted]&q=[redacted]#[redacted]",
  );
  assertEquals(
    redactUrlByDigests("https://a.test/?q=4938&r=%E0%A4", found, base),
    "https://a.test/?q=4938&r=%E0%A4",
    "a malformed escape and a near value stay",
  );
  assertEquals(redactUrlByDigests(url, [], base), url);
});

Deno.test("a tab keeps each digest once, and only the newest up to its bound", () => {
  const base = randomBase();
  const kept = digests(["first-value"], base);
  keepDigests(kept, digests(["first-value", "second-value"], base), 3);
  assertEquals(kept, digests(["first-value", "second-value"], base).slice(1));
  keepDigests(kept, [], 3);
  assertEquals(kept.length, 3);
  keepDigests(kept, digests(["a1", "b2", "c3"], base), 4);
  assertEquals(kept, digests(["b2", "c3"], base), "the oldest go first");
});
