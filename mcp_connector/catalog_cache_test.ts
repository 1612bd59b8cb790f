import { assertEquals, assertRejects } from "../tests/support/assert.ts";
import { CatalogCache, listedTools } from "./catalog_cache.ts";
import type { CatalogSnapshot } from "./service_link.ts";

function tool(name: string) {
  return {
    name,
    title: name,
    description: "d",
    inputSchema: { type: "object" },
    annotations: {},
    createsContext: false,
    needsWorkspace: true,
    acceptsWorkspace: true,
  };
}

/** A stand-in for the service link that serves whatever catalog the test sets. */
function source(initial: CatalogSnapshot) {
  let served: CatalogSnapshot | Error = initial;
  let fetches = 0;
  const listeners: ((generation: number | null) => void)[] = [];
  return {
    link: {
      catalog: () => {
        fetches++;
        return served instanceof Error ? Promise.reject(served) : Promise.resolve(served);
      },
      onCatalogChanged: (listener: (generation: number | null) => void) => {
        listeners.push(listener);
      },
    },
    serve(next: CatalogSnapshot | Error) {
      served = next;
    },
    changed: async () => {
      for (const listener of listeners) await listener(null);
    },
    fetches: () => fetches,
  };
}

const snapshot = (...names: string[]) => ({
  generation: 1,
  tools: names.map(tool),
  withheld: [] as string[],
});

Deno.test("the catalog is fetched once and refetched only after a change", async () => {
  const fake = source(snapshot("a"));
  let told = 0;
  const cache = new CatalogCache(fake.link, () => Promise.resolve(void told++));
  await cache.get();
  await cache.get();
  assertEquals(fake.fetches(), 1);

  await fake.changed();
  assertEquals(told, 0, "same tools after a reconnection: nothing to tell");
  assertEquals(fake.fetches(), 2);

  fake.serve(snapshot("a", "b"));
  await fake.changed();
  assertEquals(told, 1, "different tools: the session is told");
  assertEquals((await cache.get()).tools.map((t) => t.name), ["a", "b"]);

  fake.serve({ ...snapshot("a", "b"), withheld: ["b"] });
  await fake.changed();
  assertEquals(told, 2, "a tool withheld now: what the client is shown changed");
  assertEquals(listedTools(await cache.get()).map((t) => t.name), ["a"]);

  fake.serve(new Error("service gone"));
  await fake.changed();
  assertEquals(told, 3, "a failed refetch tells the client to list again");
  await assertRejects(() => cache.get(), /service gone/);
});

Deno.test("a change before the first fetch tells nobody", async () => {
  const fake = source(snapshot("a"));
  let told = 0;
  new CatalogCache(fake.link, () => Promise.resolve(void told++));
  await fake.changed();
  assertEquals(told, 0);
  assertEquals(fake.fetches(), 0);
});
