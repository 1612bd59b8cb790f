/**
 * Chrome's native-messaging host manifest for an instance. `browser launch` writes it into a
 * throwaway profile; `ghostlight install` will write it for the user's browsers.
 *
 * @module
 */

/** Builds the manifest that lets the extension with `extensionId` start the host at `path`. */
export function nativeHostManifest(
  options: { name: string; path: string; extensionId: string },
): Record<string, unknown> {
  return {
    name: options.name,
    description: "Ghostlight browser connector",
    path: options.path,
    // Chrome's only transport for native hosts: frames on the host's standard streams.
    type: "stdio",
    allowed_origins: [`chrome-extension://${options.extensionId}/`],
  };
}
