import { assert, assertEquals } from "../tests/support/assert.ts";
import { ROOT } from "../tests/support/env.ts";
import { Operations } from "./browser_protocol.ts";
import {
  compareVersions,
  EXTENSION_FEATURES,
  ExtensionFeature,
  extensionMismatch,
  FEATURE_OPERATIONS,
  FEATURE_SINCE,
  FEATURE_TOOLS,
  featureOf,
  knownFeatures,
  MIN_EXTENSION_VERSION,
  UPGRADE_STEP,
} from "./extension_features.ts";
import { VERSION } from "./version.ts";

interface Compatibility {
  services: { service: string; extension_min: string; features: string[] }[];
  features: Record<string, { extension_since: string; operations: string[]; tools: string[] }>;
}

const readJson = async (path: string) => JSON.parse(await Deno.readTextFile(`${ROOT}/${path}`));

Deno.test("docs/compatibility.json says what the code does", async () => {
  const compatibility: Compatibility = await readJson("docs/compatibility.json");
  const entry = compatibility.services.find((service) => service.service === VERSION);
  assert(entry, `docs/compatibility.json has an entry for service ${VERSION}`);
  assertEquals(entry.extension_min, MIN_EXTENSION_VERSION);
  assertEquals(entry.features, [...ExtensionFeature.options]);
  assertEquals(Object.keys(compatibility.features), [...ExtensionFeature.options]);
  const tools: string[] = (await readJson("service/catalog/contract.json"))
    .map((tool: { name: string }) => tool.name);
  for (const feature of ExtensionFeature.options) {
    const documented = compatibility.features[feature];
    assertEquals(documented.extension_since, FEATURE_SINCE[feature]);
    assertEquals(documented.operations, [...FEATURE_OPERATIONS[feature]]);
    assertEquals(documented.tools, [...FEATURE_TOOLS[feature]]);
    for (const op of documented.operations) assert(op in Operations, `${op} is an operation`);
    for (const tool of documented.tools) assert(tools.includes(tool), `${tool} is a tool`);
    assert(compareVersions(documented.extension_since, VERSION) <= 0, `${feature} is released`);
  }
  // The extension built from this tree is the one this service supports fully.
  const manifest = await readJson("extension/manifest.json");
  assertEquals(manifest.version, VERSION);
  assert(compareVersions(manifest.version, MIN_EXTENSION_VERSION) >= 0);
  assertEquals([...EXTENSION_FEATURES], [...ExtensionFeature.options]);
});

Deno.test("each feature's operations need it; the rest need nothing", () => {
  assertEquals(featureOf("cdp.with_transfers"), "transfers");
  assertEquals(featureOf("transfer.chunk"), "transfers");
  assertEquals(featureOf("cdp"), undefined);
  assertEquals(featureOf("tab.create"), undefined);
});

Deno.test("a hello's features: unknown names ignored, none when absent", () => {
  assertEquals(knownFeatures(undefined), []);
  assertEquals(knownFeatures(["teleport", "transfers", "transfers"]), ["transfers"]);
});

Deno.test("versions compare number by number", () => {
  assertEquals(compareVersions("0.1.0", "0.1"), 0);
  assertEquals(compareVersions("0.10.0", "0.9.9"), 1);
  assertEquals(compareVersions("0.0.9", "0.1.0"), -1);
  assertEquals(compareVersions("1.2.3.4", "1.2.3"), 1);
});

Deno.test("the mismatch names the version, what is missing, the tools and the upgrade step", () => {
  assertEquals(extensionMismatch(VERSION, [...EXTENSION_FEATURES]), null);
  const old = extensionMismatch("0.0.9", []);
  assert(old !== null);
  assert(old.includes("0.0.9") && old.includes(`older than ${MIN_EXTENSION_VERSION}`), old);
  assert(old.includes("lacks transfers") && old.includes("file_upload, upload_image"), old);
  assert(old.endsWith(UPGRADE_STEP), old);
  const featureless = extensionMismatch(VERSION, []);
  assert(featureless?.includes("lacks transfers"), String(featureless));
});
