/**
 * The policy file: JSONC (comments and trailing commas allowed), validated by one zod schema.
 * Reading a file's text into a policy is a pure function; the store around it does the I/O.
 *
 * @module
 */

import {
  applyEdits,
  modify,
  parse,
  type ParseError,
  printParseErrorCode,
  visit,
} from "jsonc-parser";
import { z } from "zod";
import { Principal } from "../../shared/bridge.ts";
import { RemotePrincipal } from "../../shared/remotes.ts";
import { Capability } from "../catalog/mod.ts";
import { HostPattern } from "./hosts.ts";

/**
 * A principal pattern: who a connector acts for, fixed at its start (decision 0255), any case,
 * or `*`.
 */
const PrincipalPattern = z.string().trim().toLowerCase().pipe(
  z.custom<string>(
    (value) =>
      value === "*" || Principal.safeParse(value).success ||
      RemotePrincipal.safeParse(value).success,
    {
      message: "a principal is 1 to 64 lowercase letters, digits and dashes, starting with a " +
        "letter or digit, or remote: and a remote's name (decision 0400)",
    },
  ),
);

/**
 * What the deprecated `"clients"` said: once an MCP client's self-reported name. It is read as
 * principals now; a name no principal can have simply matches no connector.
 */
const LegacyClientPattern = z.string().trim().min(1).max(200).toLowerCase();

/**
 * One grant: for these principals on these hosts, allow, ask the person before, and/or deny
 * these capabilities (deny wins over ask, ask over allow). `"clients"` is the deprecated
 * spelling of `"principals"`: read the same, and warned about.
 */
const Grant = z.object({
  principals: z.array(PrincipalPattern).min(1).max(64).optional(),
  clients: z.array(LegacyClientPattern).min(1).max(64).optional(),
  hosts: z.array(HostPattern).min(1).max(256).default(["*"]),
  allow: z.array(Capability).max(4).default([]),
  deny: z.array(Capability).max(4).default([]),
  /** Capabilities a call may use only once the person says yes (decision 0360). */
  ask: z.array(Capability).max(4).default([]),
}).strict().refine((grant) => grant.allow.length + grant.deny.length + grant.ask.length > 0, {
  message: 'a grant needs "allow", "ask" or "deny": a list of read, action, write, execute',
}).refine((grant) => grant.principals === undefined || grant.clients === undefined, {
  message: 'a grant says "principals" or the deprecated "clients", not both; keep "principals"',
}).transform(({ principals, clients, ...rest }) => ({
  principals: principals ?? clients ?? ["*"],
  /** True when the grant said the deprecated `"clients"`. */
  saidClients: clients !== undefined,
  ...rest,
}));
export type Grant = z.infer<typeof Grant>;

/** The policy file's schema: the one definition of what a policy file may say. */
export const PolicyFile = z.object({
  /**
   * `enforce` refuses what the policy denies and asks what it asks; `observe` records both and
   * lets the call through.
   */
  mode: z.enum(["enforce", "observe"]).default("enforce"),
  /**
   * What a capability no grant mentions gets. Required: a file of grants means something only
   * against a stated default. `ask`: the person is asked (decision 0360).
   */
  default: z.enum(["allow", "ask", "deny"], {
    error: '"default" must be "allow" (grants narrow it with deny or ask), "ask" (the person ' +
      'is asked unless a grant says otherwise) or "deny" (grants open it with allow or ask)',
  }),
  grants: z.array(Grant).max(256).default([]),
  /** Hosts never touched, on top of the built-in list; each covers its subdomains too. */
  sacred: z.array(HostPattern).max(256).default([]),
}).strict();
export type PolicyFile = z.infer<typeof PolicyFile>;

/** A policy as it is in force: what a file said, and where it came from. */
export interface PolicyLayer extends PolicyFile {
  /** Where it came from, as rules name it: a file's path, or a built-in description. */
  source: string;
  /** What in it still works but should be said otherwise (the deprecated `"clients"`). */
  warnings: string[];
}

/** The warnings of a policy read from `source`: each grant that says `"clients"`. */
function warningsOf(policy: PolicyFile, source: string): string[] {
  const said = policy.grants.flatMap((grant, index) => grant.saidClients ? [index + 1] : []);
  if (said.length === 0) return [];
  return [
    `${source}: grant${said.length > 1 ? "s" : ""} ${said.join(", ")} say${
      said.length > 1 ? "" : "s"
    } "clients", which is deprecated: it is read as "principals" (who a connector was ` +
    `started for, as install names them: claude-desktop, cursor, ...), never as the name a ` +
    `client reports; rename it "principals"`,
  ];
}

/** A file's text read into a policy, or why it cannot be. */
export type ReadPolicy = { policy: PolicyLayer } | { error: string };

/** Reads the text of the policy file at `source` (a path, for messages). */
export function readPolicyText(file: string, source: string): ReadPolicy {
  // Editors that save "UTF-8 with BOM" start the file with U+FEFF, which is no JSON.
  const text = file.startsWith("\uFEFF") ? file.slice(1) : file;
  if (text.trim() === "") return { error: `${source} is empty; an empty policy is not a policy` };
  const errors: ParseError[] = [];
  let raw: unknown;
  try {
    raw = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
    const twice = errors.length === 0 ? keyGivenTwice(text) : null;
    if (twice) return { error: `${source} is not a valid policy: ${twice}` };
  } catch (error) {
    // The parser recurses: thousands of brackets overflow its stack.
    if (!(error instanceof RangeError)) throw error;
    return { error: `${source} is not a valid policy: it nests too deeply` };
  }
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = lineAndColumn(text, first.offset);
    return {
      error: `${source} is not valid JSONC: ${
        printParseErrorCode(first.error)
      } at line ${line}, column ${column}`,
    };
  }
  const parsed = PolicyFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    return { error: `${source} is not a valid policy${where}: ${issue.message}` };
  }
  return { policy: { ...parsed.data, source, warnings: warningsOf(parsed.data, source) } };
}

/**
 * The first key an object of `text` gives twice, in words, or null. JSON lets the later one win
 * silently: a "deny" above an "allow" of the same key would read as a deny and act as an allow.
 */
function keyGivenTwice(text: string): string | null {
  const open: Set<string>[] = [];
  let found: string | null = null;
  visit(text, {
    onObjectBegin: () => void open.push(new Set()),
    onObjectEnd: () => void open.pop(),
    onObjectProperty: (property, _offset, _length, line) => {
      const keys = open.at(-1)!;
      if (keys.has(property) && found === null) {
        found = `${JSON.stringify(property)} is given twice in one object (again at line ${
          line + 1
        }); say it once`;
      }
      keys.add(property);
    },
  }, { allowTrailingComma: true, disallowComments: false });
  return found;
}

/** The 1-based line and column of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** The policy no file means: everything open, except the sacred sites. */
export const ALL_OPEN: PolicyLayer = {
  source: "no policy file (all open)",
  mode: "enforce",
  default: "allow",
  grants: [],
  sacred: [],
  warnings: [],
};

/** The policy in force when a policy file cannot be read at start: everything refused. */
export function denyAll(reason: string): PolicyLayer {
  return {
    source: `a deny-all stand-in, because ${reason}`,
    mode: "enforce",
    default: "deny",
    grants: [],
    sacred: [],
    warnings: [],
  };
}

/** A yes the person saves in their policy file: this capability on this host for this agent. */
export interface SavedGrant {
  principal: string;
  host: string;
  capability: Capability;
}

/**
 * The policy text with a grant allowing `saved` appended to its `"grants"` (made when missing),
 * every other byte kept, comments too (decision 0482); or why not: the text must read as a
 * policy before the edit and after it.
 */
export function withGrantAppended(
  text: string,
  source: string,
  saved: SavedGrant,
): { text: string } | { error: string } {
  const before = readPolicyText(text, source);
  if ("error" in before) return { error: before.error };
  const grant = { principals: [saved.principal], hosts: [saved.host], allow: [saved.capability] };
  const edits = modify(text, ["grants", -1], grant, {
    isArrayInsertion: true,
    formattingOptions: {
      insertSpaces: true,
      tabSize: 2,
      eol: text.includes("\r\n") ? "\r\n" : "\n",
    },
  });
  const next = applyEdits(text, edits);
  const after = readPolicyText(next, source);
  if ("error" in after) return { error: `the grant could not be added: ${after.error}` };
  return { text: next };
}
