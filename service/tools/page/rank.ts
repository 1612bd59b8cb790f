/**
 * Ranking for `find`: a plain-language query scored against each element's role, name, value,
 * placeholder, hint words and text, with no model or network call. Role words in the query
 * ("button", "search box", "dropdown") select roles; the other words are matched as whole words,
 * prefixes and simple stems, with the name weighing most.
 *
 * @module
 */

import { ownEntry } from "../../../shared/own.ts";
import { INTERACTIVE_SHOWN } from "../page_runtime/contract.ts";
import type { OutlineNode } from "./outline.ts";

/** Query words that name roles, and the roles they mean. */
const ROLE_WORDS: Record<string, string[]> = {
  button: ["button"],
  btn: ["button"],
  link: ["link"],
  links: ["link"],
  field: ["textbox", "searchbox", "combobox", "spinbutton"],
  input: ["textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio"],
  box: ["textbox", "searchbox", "combobox", "checkbox"],
  textbox: ["textbox", "searchbox"],
  textarea: ["textbox"],
  text: ["textbox", "text"],
  search: ["searchbox"],
  searchbox: ["searchbox"],
  checkbox: ["checkbox"],
  check: ["checkbox"],
  tickbox: ["checkbox"],
  toggle: ["checkbox", "switch", "button"],
  switch: ["switch", "checkbox"],
  radio: ["radio"],
  option: ["option", "radio"],
  dropdown: ["combobox", "listbox"],
  select: ["combobox", "listbox"],
  combobox: ["combobox"],
  menu: ["menu", "menuitem", "combobox", "navigation"],
  heading: ["heading"],
  title: ["heading"],
  header: ["heading", "banner"],
  image: ["img"],
  picture: ["img"],
  photo: ["img"],
  icon: ["img", "button"],
  logo: ["img", "link"],
  tab: ["tab"],
  table: ["table"],
  row: ["row"],
  cell: ["cell"],
  list: ["list"],
  item: ["listitem", "option", "menuitem"],
  slider: ["slider"],
  dialog: ["dialog"],
  modal: ["dialog"],
  form: ["form"],
  navigation: ["navigation"],
  nav: ["navigation"],
  frame: ["iframe"],
  iframe: ["iframe"],
};

const STOP_WORDS = new Set([
  "the",
  "a",
  "an",
  "of",
  "to",
  "for",
  "on",
  "in",
  "with",
  "and",
  "or",
  "that",
  "this",
  "is",
  "at",
  "by",
  "me",
  "my",
  "page",
  "element",
  "where",
  "which",
  "i",
  "can",
]);

function words(text: string): string[] {
  return text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .split(/[^\p{L}\p{N}@.]+/u).map((word) => word.replace(/^\.+|\.+$/g, ""))
    .filter((word) => word.length > 0);
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y";
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  return word;
}

/** Words with their stems, each stemmed once however many query words meet it. */
interface Stemmed {
  words: string[];
  stems: string[];
  /** The words joined by spaces, for phrases. */
  text: string;
}

function stemmed(list: string[]): Stemmed {
  return { words: list, stems: list.map(stem), text: list.join(" ") };
}

/** A query word and its stem. */
interface Term {
  word: string;
  stem: string;
}

function term(word: string): Term {
  return { word, stem: stem(word) };
}

/** How well one query word matches a field's words: 1 exact, 0.8 stem, 0.6 prefix. */
function wordScore(query: Term, field: Stemmed): number {
  let best = 0;
  const { word: wanted, stem: queryStem } = query;
  const { words, stems } = field;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === wanted) return 1;
    if (stems[i] === queryStem) best = Math.max(best, 0.8);
    else if (wanted.length >= 3 && word.startsWith(wanted)) best = Math.max(best, 0.6);
    else if (wanted.length >= 4 && word.includes(wanted)) best = Math.max(best, 0.4);
  }
  return best;
}

/** A node with its score. */
export interface Ranked<T extends OutlineNode> {
  node: T;
  score: number;
}

/** A node's words and their stems, made once however many queries score it. */
interface Prepared<T extends OutlineNode> {
  node: T;
  name: Stemmed;
  other: Stemmed;
}

function prepare<T extends OutlineNode>(node: T): Prepared<T> {
  const name = stemmed(words(node.name));
  const other = stemmed(words(
    [node.value, node.placeholder, node.hints, node.href].filter(Boolean).join(" "),
  ));
  return { node, name, other };
}

/** A parsed query: its terms (with their synonyms), the roles it names, its words as a phrase. */
interface Query {
  terms: { term: Term; synonyms: Term[] }[];
  wanted: Set<string>;
  phrase: string;
}

/** How well one prepared node matches the query's terms and phrase; 0 or less when it does not. */
function scoreOf<T extends OutlineNode>({ node, name, other }: Prepared<T>, query: Query): number {
  const { terms, wanted, phrase } = query;
  const nameText = name.text;
  let score = 0;
  for (const { term, synonyms } of terms) {
    let inName = wordScore(term, name);
    let inOther = wordScore(term, other);
    // Words people use for the same control ("login" for a "Sign in" button).
    for (const synonym of synonyms) {
      inName = Math.max(inName, 0.9 * phraseScore(synonym, name));
      inOther = Math.max(inOther, 0.9 * phraseScore(synonym, other));
    }
    score += Math.max(inName * 3, inOther * 1.5);
  }
  if (terms.length > 0) {
    if (score === 0) return 0;
    score /= terms.length;
  } else if (!wanted.has(node.role) && nameText !== phrase) {
    // A query of role words alone finds that role, and an element named by those words
    // ("CHECKBOX" for a menu item of that name).
    return 0;
  }
  if (phrase && nameText === phrase) score += 3;
  else if (phrase.length > 2 && nameText.includes(phrase)) score += 1.5;
  if (wanted.has(node.role)) score += 2;
  if (INTERACTIVE_SHOWN.has(node.role)) score += 0.5;
  if (node.role === "text") score -= 0.3;
  // Shorter names that match are more likely the element meant than long paragraphs.
  score -= Math.min(1, name.words.length / 60);
  return score;
}

/**
 * How many words of a query are scored. Scoring costs query words × nodes × their words on the
 * service's one thread, so a query of a few hundred KB held every client for seconds; a control
 * is named in far fewer words.
 */
const MAX_QUERY_WORDS = 32;

/** The query's terms, the roles it names, and its words as one phrase. */
function parseQuery(query: string): Query {
  const all = words(query).slice(0, MAX_QUERY_WORDS);
  const wanted = new Set<string>();
  const terms: Query["terms"] = [];
  for (const word of all) {
    const roles = ownEntry(ROLE_WORDS, word);
    if (roles) { for (const role of roles) wanted.add(role); }
    if (!STOP_WORDS.has(word) && !(roles && isPureRoleWord(word))) {
      terms.push({ term: term(word), synonyms: (ownEntry(SYNONYMS, word) ?? []).map(term) });
    }
  }
  const phrase = all.filter((word) => !STOP_WORDS.has(word)).join(" ");
  return { terms, wanted, phrase };
}

/** A node's text as `words` sees it (lower case, accents off), in one string. */
function haystackOf(node: OutlineNode): string {
  const text = [node.name, node.value, node.placeholder, node.hints, node.href]
    .filter(Boolean).join(" ").toLowerCase();
  // deno-lint-ignore no-control-regex
  return /[^\x00-\x7f]/.test(text) ? text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "") : text;
}

/**
 * Text every node that can score for `query` holds somewhere in its haystack, or null when the
 * query has no words to match (then only its roles count). A word scores against a field word
 * that equals it, shares its stem, or starts with or holds it; each of those field words holds the
 * stem's root (the stem without the `y` that "ies" became), so a node without any term's root, nor
 * any synonym's, scores 0 and need not be split into words at all (decision 0371).
 */
function needlesOf(query: Query): string[] | null {
  if (query.terms.length === 0) return null;
  const root = (t: Term) => {
    const first = t.word.includes(" ") ? term(t.word.split(" ")[0]) : t;
    return first.stem.endsWith("y") ? first.stem.slice(0, -1) : first.stem;
  };
  return query.terms.flatMap(({ term, synonyms }) => [root(term), ...synonyms.map(root)]);
}

/**
 * Ranks many queries against the same nodes (form_fill's labels against a page's fields): each
 * node's words are split once, not once per query, and only for the nodes whose text holds one
 * of the query's words. The ranking is {@linkcode rank}'s.
 */
export function ranker<T extends OutlineNode>(
  nodes: readonly T[],
): (query: string, limit?: number) => Ranked<T>[] {
  const prepared: (Prepared<T> | undefined)[] = new Array(nodes.length);
  const haystacks: (string | undefined)[] = new Array(nodes.length);
  return (query, limit = 20) => {
    const parsed = parseQuery(query);
    const needles = needlesOf(parsed);
    const scored: Ranked<T>[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      if (needles === null) {
        if (
          !parsed.wanted.has(node.role) &&
          !(haystacks[i] ??= haystackOf(node)).includes(parsed.phrase)
        ) {
          continue;
        }
      } else {
        const haystack = haystacks[i] ??= haystackOf(node);
        if (!needles.some((needle) => haystack.includes(needle))) continue;
      }
      const value = scoreOf(prepared[i] ??= prepare(node), parsed);
      if (value > 0) scored.push({ node, score: value });
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, limit);
  };
}

/** The nodes that match `query`, best first, at most `limit`. */
export function rank<T extends OutlineNode>(
  nodes: readonly T[],
  query: string,
  limit = 20,
): Ranked<T>[] {
  return ranker(nodes)(query, limit);
}

/** The query's role words alone ("sign-up button" → "button"), or "" when it has none. */
export function roleWords(query: string): string {
  return words(query).filter((word) => ownEntry(ROLE_WORDS, word)).join(" ");
}

/** A word or a phrase of several words against a field. */
function phraseScore(phrase: Term, field: Stemmed): number {
  if (!phrase.word.includes(" ")) return wordScore(phrase, field);
  return ` ${field.text} `.includes(` ${phrase.word} `) ? 1 : 0;
}

/** Common words for the same control; each side finds the other. */
const SYNONYM_GROUPS: readonly string[][] = [
  ["login", "log in", "sign in", "signin"],
  ["logout", "log out", "sign out", "signout"],
  ["signup", "sign up", "register", "create account", "join"],
  ["search", "find", "look up"],
  ["submit", "send", "continue", "next", "go", "ok", "confirm", "save"],
  ["close", "dismiss", "cancel", "x", "×"],
  ["cart", "basket", "bag"],
  ["checkout", "check out", "pay", "buy"],
  ["menu", "hamburger", "navigation"],
  ["email", "e-mail", "mail"],
  ["phone", "telephone", "mobile", "tel"],
  ["password", "passcode"],
  ["username", "user name", "login name"],
  ["delete", "remove", "trash"],
  ["edit", "modify", "change"],
  ["settings", "preferences", "options"],
  ["help", "support", "faq"],
  ["accept", "agree", "allow"],
];

const SYNONYMS: Record<string, string[]> = (() => {
  const map: Record<string, string[]> = {};
  for (const group of SYNONYM_GROUPS) {
    for (const word of group) {
      if (word.includes(" ")) continue;
      map[word] = group.filter((other) => other !== word);
    }
  }
  return map;
})();

/** Role words that carry no other meaning (unlike "search" or "title"). */
function isPureRoleWord(word: string): boolean {
  return [
    "button",
    "btn",
    "link",
    "links",
    "field",
    "input",
    "box",
    "textbox",
    "textarea",
    "checkbox",
    "tickbox",
    "radio",
    "dropdown",
    "combobox",
    "searchbox",
    "heading",
    "image",
    "icon",
    "slider",
    "iframe",
  ].includes(word);
}

/** What `find` asks of one document's walk (decision 0234): its ranking is done in the page. */
export interface FindSpec {
  /** The agent's words; "" lists the nodes of `role` in document order. */
  query: string;
  /** Only nodes of this role count. */
  role?: string;
  /** How many nodes each ranking keeps. */
  keep: number;
}
