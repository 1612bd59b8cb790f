import { assertEquals } from "../../../tests/support/assert.ts";
import type { OutlineNode } from "./outline.ts";
import { rank, ranker, roleWords } from "./rank.ts";

const NODES: OutlineNode[] = [
  { ref: "ref_1", depth: 0, role: "heading", name: "Join the Keepers' Guild" },
  {
    ref: "ref_2",
    depth: 1,
    role: "textbox",
    name: "Email address",
    placeholder: "you@example.com",
  },
  { ref: "ref_3", depth: 1, role: "textbox", name: "Password" },
  { ref: "ref_4", depth: 1, role: "button", name: "Create account" },
  { ref: "ref_5", depth: 1, role: "link", name: "Sign in" },
  { ref: "ref_6", depth: 1, role: "combobox", name: "Country", value: "Norway" },
  { ref: "ref_7", depth: 1, role: "searchbox", name: "Search the archive" },
  { ref: "ref_8", depth: 1, role: "checkbox", name: "Send me the almanac" },
  { depth: 1, role: "text", name: "Price: 42 krone for the first lamp" },
];

function top(query: string): string | undefined {
  const best = rank(NODES, query)[0]?.node;
  return best?.ref ?? best?.name;
}

Deno.test("find ranks by name, role words and hints", () => {
  assertEquals(top("email field"), "ref_2");
  assertEquals(top("create account button"), "ref_4");
  assertEquals(top("sign in link"), "ref_5");
  assertEquals(top("country dropdown"), "ref_6");
  assertEquals(top("search box"), "ref_7");
  assertEquals(top("newsletter almanac checkbox"), "ref_8");
  assertEquals(top("you@example.com"), "ref_2");
  assertEquals(top("price"), "Price: 42 krone for the first lamp");
  assertEquals(top("button"), "ref_4");
  assertEquals(rank(NODES, "zebra crossing").length, 0);
  assertEquals(top("login"), "ref_5", "a synonym phrase finds Sign in");
  assertEquals(top("register button"), "ref_4", "register finds Create account");
});

Deno.test("ranker scores many queries as rank scores each alone, stems and synonyms too", () => {
  const queries = [
    "emails",
    "passwords field",
    "log in",
    "login",
    "register",
    "countries",
    "searching",
    "almanacs",
    "mail",
    "krone",
  ];
  const many = ranker(NODES);
  for (const query of queries) {
    assertEquals(many(query, 5), rank(NODES, query, 5), query);
  }
  // A stem on either side ("emails" for "Email", "almanacs" for "almanac") and a synonym
  // ("mail" for "email", "login" for "Sign in") still find their field.
  assertEquals(many("emails")[0].node.ref, "ref_2");
  assertEquals(many("almanacs")[0].node.ref, "ref_8");
  assertEquals(many("mail")[0].node.ref, "ref_2");
  assertEquals(many("login")[0].node.ref, "ref_5");
});

Deno.test("a word that names a property of every object is an ordinary word", () => {
  // "constructor" is what `{}` answers for itself: it is neither a role word nor a synonym.
  const nodes: OutlineNode[] = [
    ...NODES,
    { ref: "ref_9", depth: 1, role: "link", name: "Constructor standings" },
  ];
  assertEquals(rank(nodes, "constructor standings")[0]?.node.ref, "ref_9");
  assertEquals(rank(nodes, "constructor")[0]?.node.ref, "ref_9");
  assertEquals(ranker(nodes)("Constructor")[0]?.node.ref, "ref_9", "a form's label too");
  assertEquals(roleWords("constructor link"), "link");
});

Deno.test("a query's words past the first 32 are not scored: a huge query costs no more", () => {
  // Scoring is query words × nodes × their words, on the service's one thread: a 700 KB query
  // held every other client (and the person's controls) for seconds per call.
  const nodes: OutlineNode[] = Array.from({ length: 200 }, (_, i) => ({
    ref: `ref_${i}`,
    depth: 1,
    role: "button",
    name: `Save draft ${i} of the harbour notes`,
  }));
  const head = "save draft 7 harbour " + Array.from({ length: 28 }, (_, i) => `x${i}`).join(" ");
  const tail = Array.from({ length: 200_000 }, (_, i) => `w${i}`).join(" ");
  assertEquals(rank(nodes, `${head} ${tail}`), rank(nodes, head));
});

Deno.test("find skips only the nodes that cannot score: stems, accents, synonyms and hints still match", () => {
  const nodes: OutlineNode[] = [
    { ref: "ref_1", depth: 0, role: "text", name: "Nothing to see" },
    { ref: "ref_2", depth: 0, role: "button", name: "Entries of the log" },
    { ref: "ref_3", depth: 0, role: "link", name: "Café terrace" },
    { ref: "ref_4", depth: 0, role: "button", name: "Log in" },
    { ref: "ref_5", depth: 0, role: "button", name: "Go", hints: "submit-order" },
    { ref: "ref_6", depth: 0, role: "combobox", name: "Country", value: "Norway" },
    { ref: "ref_7", depth: 0, role: "link", name: "Tide TABLES" },
  ];
  const best = (query: string) => rank(nodes, query)[0]?.node.ref;
  assertEquals(best("entry"), "ref_2", "a stem that ends in y finds its plural in ies");
  assertEquals(best("cafe"), "ref_3", "accents in the page's text");
  assertEquals(best("CAFÉ terrace"), "ref_3", "accents and case in the query");
  assertEquals(best("signin"), "ref_4", "a synonym of several words");
  assertEquals(best("order"), "ref_5", "hint words");
  assertEquals(best("norw"), "ref_6", "a prefix of the value");
  assertEquals(best("table"), "ref_7", "a stem in another case");
  assertEquals(rank(nodes, "lighthouse").length, 0);
  // The same ranker answers many queries; the nodes it skipped for one count for the next.
  const many = ranker(nodes);
  assertEquals(many("lighthouse").length, 0);
  assertEquals(many("entry")[0]?.node.ref, "ref_2");
  assertEquals(many("button").map((r) => r.node.ref), ["ref_5", "ref_4", "ref_2"]);
});

Deno.test("a query of role words alone also finds an element named by them, first", () => {
  const nodes: OutlineNode[] = [
    { ref: "ref_1", depth: 0, role: "checkbox", name: "Agree" },
    { ref: "ref_2", depth: 0, role: "menuitemcheckbox", name: "CHECKBOX" },
    { ref: "ref_3", depth: 0, role: "button", name: "Checkbox settings" },
  ];
  assertEquals(rank(nodes, "CHECKBOX").map((r) => r.node.ref), ["ref_2", "ref_1"]);
  assertEquals(rank(nodes, "button").map((r) => r.node.ref), ["ref_3"]);
});
