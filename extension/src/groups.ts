/**
 * Which tab group holds each workspace's tabs, by the key the service gave the workspace. The
 * memory lives in session storage, which outlives the service worker but not the browser (group
 * ids do neither): a worker Chrome stopped and started again still puts a workspace's next tab in
 * the group it already has (decision 0186).
 *
 * @module
 */

/// <reference types="@types/chrome" />

/** The session storage entry of a workspace's group. */
function entryOf(key: string): string {
  return `group:${key}`;
}

/** Whether the group still exists (the person may have ungrouped its last tab). */
async function groupExists(groupId: number): Promise<boolean> {
  try {
    await chrome.tabGroups.get(groupId);
    return true;
  } catch {
    return false;
  }
}

/** The workspace's group while it exists; a gone group is forgotten. */
export async function groupOf(key: string): Promise<number | undefined> {
  const entry = entryOf(key);
  const stored = (await chrome.storage.session.get(entry))[entry];
  if (typeof stored !== "number") return undefined;
  if (await groupExists(stored)) return stored;
  await chrome.storage.session.remove(entry);
  return undefined;
}

/** Remembers the group a workspace's tabs go to. */
export async function rememberGroup(key: string, groupId: number): Promise<void> {
  await chrome.storage.session.set({ [entryOf(key)]: groupId });
}
