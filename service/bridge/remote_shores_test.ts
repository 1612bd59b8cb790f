import type { ServiceMessage } from "../../shared/bridge.ts";
import { assertEquals } from "../../tests/support/assert.ts";
import { pollUntil } from "../../tests/support/wait.ts";
import { REMOTE_ENDS, RemoteShores, type ShoreLink } from "./remote_shores.ts";

function linkOf(remote: string): ShoreLink & { sent: ServiceMessage[] } {
  const sent: ServiceMessage[] = [];
  return { remote, sent, send: (message) => sent.push(message) };
}

Deno.test("a newer shore replaces the older, whose late end leaves the newer one current", () => {
  const shores = new RemoteShores();
  const older = linkOf("agent");
  const newer = linkOf("agent");
  const other = linkOf("other");
  shores.reported(older);
  shores.reported(other);
  // Said again (a reconnect of the same shore): nothing to replace.
  shores.reported(older);
  assertEquals(older.sent, []);
  shores.reported(newer);
  assertEquals(older.sent, [{ type: "remote_end", why: REMOTE_ENDS.replaced }]);
  // The older one's teardown comes late: it forgets nothing of the newer one.
  shores.gone(older);
  shores.stop("agent");
  assertEquals(newer.sent, [{ type: "remote_end", why: REMOTE_ENDS.stopped }]);
  assertEquals(older.sent.length, 1);
  assertEquals(other.sent, []);
  // Stopped, it is no remote's shore: a second stop says nothing more.
  shores.stop("agent");
  assertEquals(newer.sent.length, 1);
});

Deno.test("a shore that ended is forgotten, so a stop after it reaches no one", () => {
  const shores = new RemoteShores();
  const link = linkOf("agent");
  shores.reported(link);
  shores.gone(link);
  shores.stop("agent");
  assertEquals(link.sent, []);
});

Deno.test("the remotes file is watched: each change is told, none before the first look", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ghostlight-remotes-" });
  const file = `${dir}/remotes.json`;
  const shores = new RemoteShores();
  let changes = 0;
  const stop = shores.onFileChange(() => changes++);
  try {
    await shores.watch(file, 10);
    await Deno.writeTextFile(`${file}.new`, "{}");
    await Deno.rename(`${file}.new`, file);
    await pollUntil(() => Promise.resolve(changes), (seen) => seen === 1, "the new file seen");
    await Deno.writeTextFile(`${file}.new`, '{"remotes": []}');
    await Deno.rename(`${file}.new`, file);
    await pollUntil(() => Promise.resolve(changes), (seen) => seen === 2, "the change seen");
    stop();
    await Deno.remove(file);
  } finally {
    shores.close();
    await Deno.remove(dir, { recursive: true });
  }
  assertEquals(changes, 2);
});
