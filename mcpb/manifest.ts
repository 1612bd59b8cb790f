/**
 * The MCPB manifest of Ghostlight for Claude Desktop, built from the project's own facts: its
 * version, its tools as the catalog lists them, the Node entry that starts the connector, and
 * the one platform whose Deno the bundle carries.
 * The schema is the subset of MCPB 0.3 this bundle uses; `mcpb validate` checks the whole.
 *
 * @module
 */

import { z } from "zod";

/** The manifest version this bundle is written against. */
export const MANIFEST_VERSION = "0.3";

/** The part of an MCPB manifest Ghostlight writes. */
export const McpbManifest = z.object({
  manifest_version: z.literal(MANIFEST_VERSION),
  name: z.string(),
  display_name: z.string(),
  version: z.string(),
  description: z.string(),
  long_description: z.string(),
  author: z.object({ name: z.string() }),
  server: z.object({
    type: z.literal("node"),
    entry_point: z.string(),
    mcp_config: z.object({
      command: z.string(),
      args: z.array(z.string()),
      env: z.record(z.string(), z.string()),
    }),
  }),
  tools: z.array(z.object({ name: z.string(), description: z.string() })),
  keywords: z.array(z.string()),
  license: z.string(),
  compatibility: z.object({
    platforms: z.array(z.enum(["darwin", "linux", "win32"])),
    runtimes: z.object({ node: z.string() }),
  }),
  user_config: z.record(
    z.string(),
    z.object({
      type: z.literal("string"),
      title: z.string(),
      description: z.string(),
      required: z.boolean(),
      default: z.string(),
    }),
  ),
});
export type McpbManifest = z.infer<typeof McpbManifest>;

/** Where the Node entry lives inside the bundle. */
export const ENTRY_POINT = "server/ghostlight.mjs";

/** The first sentence of a tool description: MCPB shows tools as a short list. */
function firstSentence(text: string): string {
  const sentence = /^.*?[.!?](?=\s|$)/s.exec(text)?.[0] ?? text;
  return sentence.length > 200 ? `${sentence.slice(0, 199)}…` : sentence;
}

/** The manifest for `version`, the catalog's `tools`, and the one OS the bundle's Deno runs on. */
export function mcpbManifest(
  version: string,
  tools: { name: string; description: string }[],
  os: "darwin" | "linux" | "win32",
): McpbManifest {
  return McpbManifest.parse({
    manifest_version: MANIFEST_VERSION,
    name: "ghostlight",
    display_name: "Ghostlight",
    version,
    description: "Lets Claude work in the Chromium you already use, in a tab group of its own.",
    long_description:
      "Ghostlight gives Claude browser tools that act in your own Chromium, Chrome, " +
      "Edge or Brave: your profile and signed-in sessions, in a visible tab group you can pause, " +
      "take over or stop. Nothing leaves the machine. The bundle carries its own Deno; its " +
      "first launch sets up the browser side (the extension folder and its native host) as " +
      "`ghostlight install --client none` does, and `ghostlight doctor` checks every hop.",
    author: { name: "Ghostlight" },
    server: {
      type: "node",
      entry_point: ENTRY_POINT,
      mcp_config: {
        command: "node",
        // Claude Desktop's principal, as install gives its entry (decision 0255).
        args: [`\${__dirname}/${ENTRY_POINT}`, "--principal", "claude-desktop"],
        env: { GHOSTLIGHT_INSTANCE: "${user_config.instance}" },
      },
    },
    tools: tools.map((tool) => ({ name: tool.name, description: firstSentence(tool.description) })),
    keywords: ["browser", "chromium", "automation", "tabs"],
    license: "UNLICENSED",
    compatibility: {
      platforms: [os],
      runtimes: { node: ">=18.0.0" },
    },
    user_config: {
      instance: {
        type: "string",
        title: "Instance",
        description: "The Ghostlight instance to use; empty for the default one.",
        required: false,
        default: "",
      },
    },
  });
}
