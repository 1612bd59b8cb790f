import { assert, assertEquals } from "../../tests/support/assert.ts";
import type { EnableCommand } from "../../shared/browser_protocol.ts";
import { EnableBook } from "./enable_book.ts";

const INSTALL = "x".repeat(58_000);

/** The commands as each tab.observe message brings them: parsed afresh, nothing shared. */
function asked(source = INSTALL): EnableCommand[] {
  return JSON.parse(JSON.stringify([
    { method: "Runtime.enable", params: {} },
    { method: "Page.enable", params: {} },
    {
      method: "Page.addScriptToEvaluateOnNewDocument",
      params: { source, worldName: "ghostlight", runImmediately: true },
    },
  ]));
}

Deno.test("an attachment is sent each enable command once, however often it is asked", () => {
  const book = new EnableBook();
  book.ask(1, asked());
  assertEquals(book.attached(1), asked(), "a fresh attachment has all");
  book.ask(1, asked());
  assertEquals(book.notYetSent(1), [], "asked again: nothing new");
  const changed = asked("2");
  book.ask(1, changed);
  assertEquals(book.notYetSent(1), [changed[2]], "only what differs");
  assertEquals(book.attached(1), changed, "a re-attachment has all again");
});

Deno.test("a tab observed before its first attachment is sent everything once", () => {
  const book = new EnableBook();
  book.ask(1, asked());
  assertEquals(book.notYetSent(1), asked());
  assertEquals(book.notYetSent(1), []);
});

Deno.test("many tabs hold the runtime's registration once, and none once they are gone", () => {
  const book = new EnableBook();
  for (let tab = 1; tab <= 50; tab++) book.ask(tab, asked());
  assertEquals(book.held, 3, "three distinct commands, however many tabs ask");
  const shared = book.commands(1)[2];
  for (let tab = 2; tab <= 50; tab++) {
    assert(book.commands(tab)[2] === shared, `tab ${tab} shares the one registration`);
  }
  assert(book.askLike(1, 51), "a popup asks as its opener");
  assert(book.commands(51)[2] === shared);
  assertEquals(book.askLike(99, 52), false, "an opener not observed gives nothing");

  for (let tab = 1; tab <= 25; tab++) book.ask(tab, asked("new runtime"));
  assertEquals(book.held, 4, "old and new registrations while tabs ask for each");
  for (let tab = 1; tab <= 51; tab++) book.forget(tab);
  assertEquals(book.held, 0, "nothing kept for tabs no longer observed");
  assertEquals(book.commands(1), []);
});

Deno.test("a command listed twice is sent once and released twice", () => {
  const book = new EnableBook();
  const twice = [...asked(), ...asked()];
  book.ask(1, twice);
  assertEquals(book.attached(1), asked());
  assertEquals(book.held, 3);
  book.forget(1);
  assertEquals(book.held, 0);
});
