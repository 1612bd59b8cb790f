/**
 * The policy in force, kept current: the machine-wide file and the user's file are read at start
 * and re-read when they change. A file that fails to read or validate at start stands in as
 * deny-all with the reason; one that fails later leaves its last good version in force, and the
 * reason is kept for `status` and logged. No file is the all-open default. The decision itself
 * is `decide()`'s; this is the I/O around it.
 *
 * @module
 */

import { readRegularText, statOrNull } from "../../shared/files.ts";
import { log } from "../log/mod.ts";
import type { Rules } from "./decide.ts";
import {
  ALL_OPEN,
  denyAll,
  type PolicyLayer,
  readPolicyText,
  type SavedGrant,
  withGrantAppended,
} from "./policy_file.ts";
import { BUILT_IN_SACRED } from "./sacred.ts";

/**
 * The largest policy file read (a real one is a few KiB): a larger one is refused without being
 * read, so a planted 75 MB file re-read every second cannot hold the service's memory.
 */
export const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * A policy file's text, or null when there is none: a link is followed (a person may keep their
 * policy with their dotfiles), but the file must be a regular one (a FIFO would hang the read)
 * within {@linkcode MAX_POLICY_BYTES}; otherwise the reason is thrown.
 */
export async function readPolicySource(file: string): Promise<string | null> {
  return await readRegularText(file, { noFollow: false, maxBytes: MAX_POLICY_BYTES });
}

/** What tells a file changed without reading it: its identity, size and modification time. */
function fingerprintOf(info: Deno.FileInfo): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtime?.getTime()}`;
}

/** Where the machine-wide policy lives; it can only tighten each user's. */
export const MACHINE_POLICY_FILE = "/etc/ghostlight/policy.jsonc";

/** What `status` says of one policy file. */
export interface PolicyFileState {
  file: string;
  /** `absent` (no file), `loaded`, or `invalid` (see `error`; `inForce` says what applies). */
  state: "absent" | "loaded" | "invalid";
  /** What applies from this file now: nothing, the file, its last good version, or deny-all. */
  inForce: "nothing" | "file" | "last good version" | "deny-all";
  mode?: "enforce" | "observe";
  error?: string;
}

/** One watched file: its last text seen, the layer it gives, and what went wrong. */
interface Watched {
  file: string;
  /** What a missing file means for this layer (null: no layer). */
  absent: PolicyLayer | null;
  text: string | null;
  layer: PolicyLayer | null;
  state: PolicyFileState;
  /** Polls in a row that found the file missing after it had been there. */
  missing: number;
  /** The file as last seen by `stat`: an unchanged file is not read again. */
  seen: string | null;
}

/** The policy files of one service, watched. */
export class PolicyStore {
  readonly #watched: Watched[];
  #rules: Rules;
  #timer: ReturnType<typeof setInterval> | undefined;
  #revision = 1;
  #listeners = new Set<(rules: Rules) => void>();

  /**
   * The store for the user's file and the machine-wide one. Nothing is read until
   * {@linkcode load}.
   */
  constructor(options: { userFile: string; machineFile: string }) {
    this.#watched = [
      watched(options.machineFile, null),
      watched(options.userFile, ALL_OPEN),
    ];
    this.#rules = { layers: [ALL_OPEN], builtInSacred: BUILT_IN_SACRED };
  }

  /** Reads both files for the first time; a bad one stands in as deny-all. */
  async load(): Promise<void> {
    for (const entry of this.#watched) await this.#read(entry, { starting: true });
    this.#rebuild();
  }

  /** Re-reads the files every `ms` from now on. */
  watch(ms: number): void {
    this.#timer = setInterval(() => this.reload().catch(() => {}), ms);
  }

  /** Re-reads both files and applies what changed. */
  async reload(): Promise<void> {
    let changed = false;
    for (const entry of this.#watched) {
      changed = (await this.#read(entry, { starting: false })) || changed;
    }
    if (!changed) return;
    this.#rebuild();
    this.#revision++;
    for (const listener of [...this.#listeners]) {
      try {
        listener(this.#rules);
      } catch (error) {
        log("error", `a policy change could not be applied: ${(error as Error).message}`);
      }
    }
  }

  /** Counts the reloads that changed the rules; starts at 1. */
  get revision(): number {
    return this.#revision;
  }

  /** Calls `listener` after a reload changed the rules in force; returns how to stop. */
  onChange(listener: (rules: Rules) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Stops watching. */
  close(): void {
    clearInterval(this.#timer);
  }

  /** The rules in force now. */
  rules(): Rules {
    return this.#rules;
  }

  /** What in the policies in force is deprecated, in words (one line each). */
  warnings(): string[] {
    return this.#rules.layers.flatMap((layer) => layer.warnings);
  }

  /**
   * Saves the person's yes in their own policy file as a grant allowing it (decision 0482), every
   * other byte of the file kept, and applies it; the file's path. Throws {@linkcode NotSaved}
   * with the reason, the file untouched, when there is no file or it would not read as a policy.
   */
  async saveGrant(saved: SavedGrant): Promise<string> {
    const entry = this.#watched[1];
    const text = await readPolicySource(entry.file).catch((error) => {
      throw new NotSaved(`${entry.file} cannot be read: ${error.message}`);
    });
    if (text === null) {
      throw new NotSaved(
        `there is no policy file at ${entry.file} to save it in ('ghostlight policy init' ` +
          "writes one); the question is still open",
      );
    }
    const edited = withGrantAppended(text, entry.file, saved);
    if ("error" in edited) {
      throw new NotSaved(
        `${entry.file} was left as it is (${edited.error}); the question is still open`,
      );
    }
    await Deno.writeTextFile(entry.file, edited.text);
    await this.reload();
    return entry.file;
  }

  /** What each file says now: the machine-wide one, then the user's. */
  states(): { machine: PolicyFileState; user: PolicyFileState } {
    return { machine: this.#watched[0].state, user: this.#watched[1].state };
  }

  /** Reads one file; true when what it gives changed. */
  async #read(entry: Watched, { starting }: { starting: boolean }): Promise<boolean> {
    let text: string | null;
    try {
      const info = await statOrNull(entry.file, true);
      const seen = info === null ? null : fingerprintOf(info);
      if (!starting && seen !== null && seen === entry.seen) return false;
      entry.seen = seen;
      text = info === null ? null : await readPolicySource(entry.file);
      if (text === null) throw new Deno.errors.NotFound(entry.file);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        return this.#failed(
          entry,
          `${entry.file} cannot be read: ${(error as Error).message}`,
          starting,
        );
      }
      entry.seen = null;
      // An editor may replace a file by removing it first: gone twice in a row is gone.
      if (entry.text !== null && !starting && ++entry.missing < 2) return false;
      const was = entry.state.state;
      entry.text = null;
      entry.missing = 0;
      entry.layer = entry.absent;
      entry.state = { file: entry.file, state: "absent", inForce: "nothing" };
      if (was !== "absent") log("info", `policy file ${entry.file} is gone; it no longer applies`);
      return was !== "absent";
    }
    entry.missing = 0;
    if (text === entry.text && !starting) return false;
    entry.text = text;
    const read = readPolicyText(text, entry.file);
    if ("error" in read) return this.#failed(entry, read.error, starting);
    entry.layer = read.policy;
    entry.state = { file: entry.file, state: "loaded", inForce: "file", mode: read.policy.mode };
    log(
      "info",
      `policy ${entry.file} is in force (${read.policy.mode}, default ${read.policy.default})`,
    );
    return true;
  }

  /**
   * A file that cannot be used: at start it stands in as deny-all (never all-open); later, what
   * was in force stays in force (the last good version, or no file's meaning) until it is fixed.
   * True when what the file gives changed.
   */
  #failed(entry: Watched, reason: string, starting: boolean): boolean {
    const before = entry.state.inForce;
    const keep = !starting && before !== "deny-all";
    if (!keep) entry.layer = denyAll(reason);
    entry.state = {
      file: entry.file,
      state: "invalid",
      inForce: !keep ? "deny-all" : before === "nothing" ? "nothing" : "last good version",
      error: reason,
    };
    log(
      "warn",
      keep
        ? `${reason}; the policy that was in force stays until it is fixed`
        : `${reason}; everything is refused until it is fixed`,
    );
    return !keep;
  }

  #rebuild(): void {
    const layers = this.#watched.flatMap((entry) => entry.layer === null ? [] : [entry.layer]);
    this.#rules = { layers, builtInSacred: BUILT_IN_SACRED };
  }
}

function watched(file: string, absent: PolicyLayer | null): Watched {
  return {
    file,
    absent,
    text: null,
    layer: absent,
    state: { file, state: "absent", inForce: "nothing" },
    missing: 0,
    seen: null,
  };
}

/** The person's yes could not be saved in their policy file: the reason, the file untouched. */
export class NotSaved extends Error {}
