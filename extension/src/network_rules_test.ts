import { assertEquals } from "../../tests/support/assert.ts";
import { hostFilter } from "./network_rules.ts";

/** Whether the browser's filter for `host` matches `url` (it ignores case, as the rules ask). */
function matches(host: string, subdomains: boolean, url: string): boolean {
  return new RegExp(hostFilter(host, subdomains), "i").test(url);
}

/** Each case: the rule's host, whether it covers subdomains, a URL, whether it matches. */
const CASES: [string, boolean, string, boolean][] = [
  // The host, whatever the port, user name, trailing dot, scheme or what follows.
  ["127.0.0.2", false, "http://127.0.0.2/", true],
  ["127.0.0.2", false, "http://127.0.0.2:8080/submit", true],
  ["127.0.0.2", false, "https://user:pw@127.0.0.2/x", true],
  ["127.0.0.2", false, "http://127.0.0.2./", true],
  ["127.0.0.2", false, "ws://127.0.0.2:9/socket", true],
  ["127.0.0.2", false, "http://127.0.0.2?q", true],
  ["127.0.0.2", false, "http://127.0.0.2#f", true],
  ["bank.example", true, "https://WWW.Bank.Example/login", true],
  ["bank.example", true, "https://bank.example/", true],
  ["[::1]", false, "http://[::1]:3000/", true],
  // Nothing that merely contains the name.
  ["127.0.0.2", false, "http://127.0.0.2.evil.test/", false],
  ["127.0.0.2", false, "http://a127.0.0.2/", false],
  ["127.0.0.2", false, "http://127.0.0.20/", false],
  ["127.0.0.2", false, "http://evil.test/?to=http://127.0.0.2/", false],
  ["127.0.0.2", false, "http://evil.test/127.0.0.2/", false],
  ["127.0.0.2", false, "http://127.0.0.2@evil.test/", false],
  ["127.0.0.2", false, "http://sub.127.0.0.2/", false],
  ["bank.example", true, "https://notbank.example/", false],
  ["bank.example", true, "https://bank.example.evil.test/", false],
  ["bank.example", false, "https://www.bank.example/", false],
];

Deno.test("a host's filter matches its URLs, and nothing that merely contains its name", () => {
  for (const [host, subdomains, url, expected] of CASES) {
    assertEquals(matches(host, subdomains, url), expected, `${host} ${subdomains} ${url}`);
  }
});
