/**
 * The service's workspaces: minting, lookup by exact id, release, and which tabs each owns. A
 * workspace owns its tabs and its tab group; its id is an opaque bearer capability, compared
 * exactly and never logged.
 *
 * @module
 */

import type { GroupColor } from "../../shared/browser_protocol.ts";
import { encodeBase64 } from "../../shared/base64.ts";
import { log } from "../log/mod.ts";

/** How many workspaces one service holds at once. */
export const MAX_WORKSPACES = 64;
/**
 * How many tabs one workspace owns at most. Pages open popups and target=_blank tabs on their
 * own, and each owned tab is observed (a debugger session, event rings): a page opening windows
 * in a loop must not grow that without limit. Tabs beyond it stay the user's.
 */
export const MAX_TABS_PER_WORKSPACE = 32;
/** How many screenshots a workspace keeps for later reference. */
export const MAX_IMAGES = 16;

const COLORS: readonly GroupColor[] = ["blue", "purple", "cyan", "green", "orange", "pink", "red"];

/** A screenshot kept so that later calls can refer to it. */
export interface KeptImage {
  id: string;
  tabId: number;
  data: string;
  width: number;
  height: number;
  /** Viewport CSS pixels per screenshot pixel, to map coordinates back. */
  scale: number;
  /** For a zoom: the viewport region (CSS pixels) it shows; coordinates never refer to it. */
  region?: { x: number; y: number; width: number; height: number };
}

/** What an agent said it will do (update_plan). */
export interface AgentPlan {
  domains: string[];
  approach: string[];
  /** ISO time it was stated. */
  at: string;
}

/** One agent's workspace. */
export interface Workspace {
  readonly id: string;
  /**
   * The person's handle for it, counted from 1 as workspaces open (`ghostlight hold 2`, the
   * popup). Not a capability: it names, it opens nothing.
   */
  readonly number: number;
  /**
   * The principal its connector proved (decision 0255): what its tab group and the popup name it
   * by (decision 0338).
   */
  readonly principal: string;
  /** What its client calls itself (`clientInfo`): shown only as a marked, escaped detail. */
  readonly label: string;
  readonly color: GroupColor;
  /** Key the extension uses to find this workspace's tab group. */
  readonly groupKey: string;
  /** Fences page-sourced text so injected text cannot fake the end of a fence. */
  readonly fenceNonce: string;
  readonly createdAt: Date;
  /** Model-facing ids of the tabs this workspace owns. */
  readonly tabs: Set<number>;
  /** The plan the agent stated last with update_plan, shown to the user. */
  plan?: AgentPlan;
  /** Screenshots, oldest first, at most {@linkcode MAX_IMAGES}. */
  readonly images: KeptImage[];
  nextImage: number;
}

function randomToken(bytes: number): string {
  return encodeBase64(crypto.getRandomValues(new Uint8Array(bytes)))
    .replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/** Thrown when the workspace limit is reached. */
export class WorkspaceLimit extends Error {}

/** The service's workspaces. */
export class WorkspaceRegistry {
  #workspaces = new Map<string, Workspace>();
  #opened = 0;
  #released: ((id: string) => void) | null = null;

  /**
   * Mints a new workspace for `principal`, whose client calls itself `label` (shown to the
   * person only as the client's claim).
   */
  open(label: string, principal = "unnamed"): Workspace {
    if (this.#workspaces.size >= MAX_WORKSPACES) {
      throw new WorkspaceLimit(
        `the service already holds ${MAX_WORKSPACES} workspaces; close an MCP client first`,
      );
    }
    const workspace: Workspace = {
      id: `ws_${randomToken(24)}`,
      number: this.#opened + 1,
      principal,
      label,
      color: COLORS[this.#opened++ % COLORS.length],
      groupKey: randomToken(12),
      fenceNonce: randomToken(6),
      createdAt: new Date(),
      tabs: new Set(),
      images: [],
      nextImage: 1,
    };
    this.#workspaces.set(workspace.id, workspace);
    return workspace;
  }

  /** The workspace with exactly this id, if any. */
  get(id: string): Workspace | undefined {
    return this.#workspaces.get(id);
  }

  /** Forgets a workspace. Its tabs stay open in the browser, now the user's. */
  release(id: string): boolean {
    const released = this.#workspaces.delete(id);
    if (released) this.#released?.(id);
    return released;
  }

  /** Calls `listener` with each workspace's id as it is released (the person's yeses go too). */
  onRelease(listener: (id: string) => void): void {
    this.#released = listener;
  }

  /** The plans agents stated, by workspace label (never the workspace id). */
  plans(): (AgentPlan & { client: string })[] {
    return [...this.#workspaces.values()].flatMap((workspace) =>
      workspace.plan ? [{ client: workspace.label, ...workspace.plan }] : []
    );
  }

  /** Every workspace, oldest first. */
  list(): Workspace[] {
    return [...this.#workspaces.values()];
  }

  /** The workspace the person numbered `number`, if it still exists. */
  byNumber(number: number): Workspace | undefined {
    return this.list().find((workspace) => workspace.number === number);
  }

  /** How many workspaces exist. */
  get size(): number {
    return this.#workspaces.size;
  }

  /**
   * Gives a tab the browser opened from an owned tab (a popup, a target=_blank link) to the
   * opener's workspace; returns that workspace, if any. A workspace that already owns
   * {@linkcode MAX_TABS_PER_WORKSPACE} tabs adopts no more: the new tab is left to the user.
   */
  adoptTab(openerTabId: number, tabId: number): Workspace | undefined {
    for (const workspace of this.#workspaces.values()) {
      if (workspace.tabs.has(openerTabId)) {
        if (workspace.tabs.size >= MAX_TABS_PER_WORKSPACE) {
          log(
            "warn",
            `a page opened a tab beyond a workspace's ${MAX_TABS_PER_WORKSPACE}; not adopted`,
          );
          return undefined;
        }
        workspace.tabs.add(tabId);
        return workspace;
      }
    }
    return undefined;
  }

  /** Drops a closed tab from whichever workspace owned it. */
  forgetTab(tabId: number): void {
    for (const workspace of this.#workspaces.values()) workspace.tabs.delete(tabId);
  }
}

/**
 * What a workspace's tab group shows: whose it is, by the principal its connector proved (never
 * the name its client chose, decision 0338), and, when it is stopped, why.
 */
export function groupTitle(
  workspace: Pick<Workspace, "principal">,
  state: "running" | "held" | "attention" | "asking" = "running",
): string {
  const title = state === "held"
    ? `⏸ Paused — ${workspace.principal}`
    : state === "attention"
    ? `⚠ Needs you — ${workspace.principal}`
    : state === "asking"
    ? `? Asks you — ${workspace.principal}`
    : `Ghostlight — ${workspace.principal}`;
  return title.slice(0, 80);
}

/**
 * Keeps a screenshot in the workspace, evicting the oldest beyond the bound. Its id names the
 * workspace's number, never reused within a service, so another workspace's id is refused there
 * rather than taken for one of its own screenshots.
 */
export function keepImage(workspace: Workspace, image: Omit<KeptImage, "id">): KeptImage {
  const kept = { id: `img_${workspace.number}_${workspace.nextImage++}`, ...image };
  workspace.images.push(kept);
  while (workspace.images.length > MAX_IMAGES) workspace.images.shift();
  return kept;
}
