/**
 * The tool catalog as one client session last saw it. It is fetched from the service once, and
 * fetched again after the service says it changed or the link to the service was rebuilt; the
 * session hears about it only when the tools really differ.
 *
 * @module
 */

import { ErrorCode, RpcError } from "./jsonrpc.ts";
import type { CatalogSnapshot, ServiceLink } from "./service_link.ts";

/** What the cache needs of the link to the service. */
export type CatalogSource = Pick<ServiceLink, "catalog" | "onCatalogChanged">;

/** One session's view of the catalog. */
export class CatalogCache {
  #link: CatalogSource;
  #current: CatalogSnapshot | null = null;

  /** Caches `link`'s catalog; `onToolsChanged` runs when a refetch shows different tools. */
  constructor(link: CatalogSource, onToolsChanged: () => Promise<void>) {
    this.#link = link;
    link.onCatalogChanged(async () => {
      const before = this.#current;
      this.#current = null;
      if (before === null) return;
      const after = await this.get().catch(() => null);
      if (after !== null && listedOf(after) === listedOf(before)) return;
      await onToolsChanged();
    });
  }

  /** The catalog, fetched when not cached; a JSON-RPC internal error when the service fails. */
  async get(): Promise<CatalogSnapshot> {
    if (this.#current) return this.#current;
    try {
      this.#current = await this.#link.catalog();
      return this.#current;
    } catch (error) {
      throw new RpcError(ErrorCode.internalError, (error as Error).message);
    }
  }
}

/** What a client is shown of a catalog: the tools it lists, as one comparable string. */
function listedOf(catalog: CatalogSnapshot): string {
  return JSON.stringify(listedTools(catalog));
}

/** The tools a client is shown: all but the withheld. */
export function listedTools(catalog: CatalogSnapshot): CatalogSnapshot["tools"] {
  if (catalog.withheld.length === 0) return catalog.tools;
  return catalog.tools.filter((tool) => !catalog.withheld.includes(tool.name));
}
