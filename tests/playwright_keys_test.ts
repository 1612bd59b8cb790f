/**
 * Playwright's keyboard, fill and focus cases, ported (docs/playwright-cases.md, "Keys, fills,
 * focus, files"): a real MCP client, all three processes and headless Chromium drive
 * Playwright's own test pages (tests/fixtures/playwright/, Apache-2.0, see its NOTICE) through
 * our tools, and the page's own record is the witness.
 */

import { assert, assertEquals, assertMatch } from "./support/assert.ts";
import { plain } from "./support/fence.ts";
import { type E2ESession, freshPage, refOf, startSession } from "./support/session.ts";
import { serveFixtures } from "./support/fixtures.ts";
import { pollUntil } from "./support/wait.ts";

/** What the page's script answers to `expression`. */
async function evaluate(s: E2ESession, tabId: number, expression: string): Promise<string> {
  const result = await s.ok("javascript_tool", {
    action: "javascript_exec",
    text: expression,
    tabId,
  });
  return String((plain(result) as { result: unknown }).result);
}

/** keyboard.html's log of key events since the last read, one event a line. */
function keyLog(s: E2ESession, tabId: number): Promise<string> {
  return evaluate(s, tabId, "getResult()");
}

async function press(s: E2ESession, tabId: number, text: string): Promise<void> {
  await s.ok("computer", { action: "key", text, tabId });
}

async function type(s: E2ESession, tabId: number, text: string): Promise<void> {
  await s.ok("computer", { action: "type", text, tabId });
}

Deno.test("playwright keyboard, fill, focus, frame and file cases, one browser for all", async (t) => {
  const s = await startSession();
  try {
    await t.step("playwright keyboard cases: codes, locations and shifted keys", async (t) => {
      const tabId = await s.firstTab();
      const onKeyboard = (name: string, fn: () => Promise<void>) =>
        t.step(name, async () => {
          await freshPage(s, tabId, "/playwright/input/keyboard.html");
          await fn();
        });

      await onKeyboard("typed punctuation carries its key's code (send proper codes)", async () => {
        await type(s, tabId, "!");
        // A person types "!" with shift held, and so do we (Playwright reports no modifier).
        assertEquals(
          await keyLog(s, tabId),
          [
            "Keydown: ! Digit1 STANDARD [Shift]",
            "Keypress: ! Digit1 STANDARD 33 [Shift]",
            "Keyup: ! Digit1 STANDARD [Shift]",
          ].join("\n"),
        );
        await type(s, tabId, "^");
        assertMatch(await keyLog(s, tabId), /^Keydown: \^ Digit6 STANDARD \[Shift\]\n/);
        await type(s, tabId, "~");
        assertMatch(await keyLog(s, tabId), /^Keydown: ~ Backquote STANDARD \[Shift\]\n/);
      });

      await onKeyboard("shift+3 gives # (shift raw codes)", async () => {
        await press(s, tabId, "shift+3");
        assertEquals(
          await keyLog(s, tabId),
          [
            "Keydown: Shift ShiftLeft LEFT [Shift]",
            "Keydown: # Digit3 STANDARD [Shift]",
            "Keypress: # Digit3 STANDARD 35 [Shift]",
            "Keyup: # Digit3 STANDARD [Shift]",
            "Keyup: Shift ShiftLeft LEFT []",
          ].join("\n"),
        );
      });

      await onKeyboard("plus, and shift with plus (press plus, press shift plus)", async () => {
        await press(s, tabId, "plus");
        assertEquals(
          await keyLog(s, tabId),
          [
            "Keydown: + Equal STANDARD [Shift]",
            "Keypress: + Equal STANDARD 43 [Shift]",
            "Keyup: + Equal STANDARD [Shift]",
          ].join("\n"),
        );
        await press(s, tabId, "shift++");
        assertEquals(
          await keyLog(s, tabId),
          [
            "Keydown: Shift ShiftLeft LEFT [Shift]",
            "Keydown: + Equal STANDARD [Shift]",
            "Keypress: + Equal STANDARD 43 [Shift]",
            "Keyup: + Equal STANDARD [Shift]",
            "Keyup: Shift ShiftLeft LEFT []",
          ].join("\n"),
        );
      });

      await onKeyboard("several modifiers around a key (multiple plus-separated)", async () => {
        await press(s, tabId, "ctrl+shift+asciitilde");
        assertEquals(
          await keyLog(s, tabId),
          [
            "Keydown: Control ControlLeft LEFT [Control]",
            "Keydown: Shift ShiftLeft LEFT [Control Shift]",
            "Keydown: ~ Backquote STANDARD [Control Shift]",
            "Keyup: ~ Backquote STANDARD [Control Shift]",
            "Keyup: Shift ShiftLeft LEFT [Control]",
            "Keyup: Control ControlLeft LEFT []",
          ].join("\n"),
        );
        await press(s, tabId, "ctrl+alt+semicolon");
        assertMatch(await keyLog(s, tabId), /Keydown: ; Semicolon STANDARD \[Alt Control\]/);
      });

      await onKeyboard("modifiers say left or right; Control_R is the right one", async () => {
        await press(s, tabId, "Control_R Shift_L Alt_R");
        assertEquals(
          await keyLog(s, tabId),
          [
            "Keydown: Control ControlRight RIGHT [Control]",
            "Keyup: Control ControlRight RIGHT []",
            "Keydown: Shift ShiftLeft LEFT [Shift]",
            "Keyup: Shift ShiftLeft LEFT []",
            "Keydown: Alt AltRight RIGHT [Alt]",
            "Keyup: Alt AltRight RIGHT []",
          ].join("\n"),
        );
      });

      await onKeyboard("the numpad says so (specify location)", async () => {
        await press(s, tabId, "KP_Subtract 5");
        assertEquals(
          await keyLog(s, tabId),
          [
            "Keydown: - NumpadSubtract NUMPAD []",
            "Keypress: - NumpadSubtract NUMPAD 45 []",
            "Keyup: - NumpadSubtract NUMPAD []",
            "Keydown: 5 Digit5 STANDARD []",
            "Keypress: 5 Digit5 STANDARD 53 []",
            "Keyup: 5 Digit5 STANDARD []",
          ].join("\n"),
        );
      });

      await onKeyboard("audio and media keys by their xdotool names", async () => {
        await press(
          s,
          tabId,
          "XF86AudioMute XF86AudioLowerVolume XF86AudioRaiseVolume XF86AudioNext " +
            "XF86AudioPrev XF86AudioPlay",
        );
        const downs = (await keyLog(s, tabId)).split("\n").filter((line) =>
          line.startsWith("Keydown")
        );
        assertEquals(downs, [
          "Keydown: AudioVolumeMute AudioVolumeMute STANDARD []",
          "Keydown: AudioVolumeDown AudioVolumeDown STANDARD []",
          "Keydown: AudioVolumeUp AudioVolumeUp STANDARD []",
          "Keydown: MediaTrackNext MediaTrackNext STANDARD []",
          "Keydown: MediaTrackPrevious MediaTrackPrevious STANDARD []",
          "Keydown: MediaPlayPause MediaPlayPause STANDARD []",
        ]);
      });

      await onKeyboard("unknown keys are refused by name, nothing pressed", async () => {
        assertMatch(
          await s.fail("computer", { action: "key", text: "NotARealKey", tabId }),
          /unknown key name "NotARealKey"/,
        );
        assertEquals(await keyLog(s, tabId), "");
      });

      await t.step("Enter, KP_Enter and a typed newline each make a new line", async () => {
        await freshPage(s, tabId, "/playwright/input/textarea.html");
        for (const [how, text] of [["key", "Return"], ["key", "KP_Enter"], ["type", "\n"]]) {
          await evaluate(
            s,
            tabId,
            "const t = document.querySelector('textarea'); t.value = ''; " +
              "t.focus(); 'ready'",
          );
          if (how === "key") await press(s, tabId, text);
          else await type(s, tabId, text);
          assertEquals(
            await evaluate(s, tabId, "JSON.stringify(document.querySelector('textarea').value)"),
            '"\\n"',
            `${how} ${JSON.stringify(text)}`,
          );
        }
      });

      await t.step("all kinds of characters type as they are", async () => {
        await freshPage(s, tabId, "/playwright/input/textarea.html");
        await evaluate(s, tabId, "document.querySelector('textarea').focus(); 'ready'");
        const text = 'This text goes onto two lines.\nThis character is 嗨 ~!@#$%^&*()_+{}|:"<>?';
        await type(s, tabId, text);
        assertEquals(
          JSON.parse(
            await evaluate(s, tabId, "JSON.stringify(document.querySelector('textarea').value)"),
          ),
          text,
        );
      });
    });

    await t.step(
      "playwright fill cases: events, line breaks, hidden, several options, groups",
      async (t) => {
        const tabId = await s.firstTab();
        const onPage = (name: string, fn: () => Promise<void>) =>
          t.step(name, async () => {
            await freshPage(s, tabId, "/fill_cases.html");
            await fn();
          });
        const setField = (ref: string, value: unknown) =>
          s.call("form_input", { ref, value, tabId });

        await onPage("change stays in its shadow root; input leaves it (composed)", async () => {
          const inner = await refOf(s, tabId, /textbox "Inner field"/);
          await s.ok("form_input", { ref: inner, value: "hello", tabId });
          assertEquals(
            await evaluate(s, tabId, "JSON.stringify(window.seen)"),
            JSON.stringify({ input: 1, change: 0, innerChange: 1 }),
          );
        });

        await onPage("a contenteditable keeps the line break (fill with new lines)", async () => {
          const address = await refOf(s, tabId, /textbox "Address"/);
          await s.ok("form_input", { ref: address, value: "John\nDoe", tabId });
          assertEquals(
            await evaluate(
              s,
              tabId,
              "JSON.stringify(document.getElementById('address').innerText)",
            ),
            JSON.stringify("John\nDoe"),
          );
        });

        await onPage(
          "a field hidden since it was read is not filled (retry on invisible)",
          async () => {
            const nickname = await refOf(s, tabId, /textbox "Nickname"/);
            await evaluate(
              s,
              tabId,
              "document.getElementById('nickname').style.display = 'none'; 1",
            );
            const result = await setField(nickname, "bot");
            assertEquals(result.isError, true, s.text(result));
            assertMatch(s.text(result), /not visible on the page now, so it was not set/);
            assertEquals(await evaluate(s, tabId, "document.getElementById('nickname').value"), "");
          },
        );

        await onPage("a hidden select or toggle is set and said to be unseen", async () => {
          const size = await refOf(s, tabId, /combobox "Size"/);
          const subscribe = await refOf(s, tabId, /checkbox "Subscribe"/);
          await evaluate(s, tabId, "document.getElementById('size').style.display = 'none'; 1");
          const sized = await s.ok("form_input", { ref: size, value: "Large", tabId });
          assertMatch(s.text(sized), /but it is not visible on the page/);
          assertEquals(await evaluate(s, tabId, "document.getElementById('size').value"), "Large");
          // A styled checkbox: the box hidden, its label shown; a person sets it by the label.
          await evaluate(
            s,
            tabId,
            "document.getElementById('subscribe').style.display = 'none'; 1",
          );
          const styled = await s.ok("form_input", { ref: subscribe, value: true, tabId });
          assertMatch(s.text(styled), /^Set checkbox \[ref_\d+\] to checked\.$/);
          await evaluate(s, tabId, "document.getElementById('subscribe-label').hidden = true; 1");
          const unseen = await s.ok("form_input", { ref: subscribe, value: false, tabId });
          assertMatch(s.text(unseen), /but it is not visible on the page/);
          assertEquals(
            await evaluate(s, tabId, "String(document.getElementById('subscribe').checked)"),
            "false",
          );
        });

        await onPage("a select multiple takes several options, as a JSON list", async () => {
          const colours = await refOf(s, tabId, /listbox "Colours"/);
          await s.ok("form_input", { ref: colours, value: '["Red", "b"]', tabId });
          const selected = "Array.from(document.getElementById('colours').selectedOptions, " +
            "(o) => o.value).join()";
          assertEquals(await evaluate(s, tabId, selected), "r,b");
          // One value selects that one alone.
          await s.ok("form_input", { ref: colours, value: "Green", tabId });
          assertEquals(await evaluate(s, tabId, selected), "g");
          const unknown = await setField(colours, '["Red", "Purple"]');
          assertEquals(unknown.isError, true);
          assertMatch(s.text(unknown), /has no option with that value or label/);
          assertMatch(s.text(unknown), /takes several as a JSON list in the string/);
          assertEquals(await evaluate(s, tabId, selected), "g");
        });

        await onPage("a field disabled by its fieldset is told so", async () => {
          const street = await refOf(s, tabId, /textbox "Street"/);
          const grouped = await setField(street, "1 Main St");
          assertEquals(grouped.isError, true);
          assertMatch(s.text(grouped), /in a disabled group \(a fieldset\)/);
          assert(!/Fill the fields it depends on first/.test(s.text(grouped)), s.text(grouped));
          const code = await refOf(s, tabId, /textbox "Code"/);
          assertMatch(s.text(await setField(code, "x")), /is disabled, so it cannot take a value/);
        });
      },
    );

    await t.step("wait_for looks in every frame the agent can read", async (t) => {
      // "localhost" is another site than 127.0.0.1: Chromium runs that frame out of process.
      const other = serveFixtures();
      try {
        const tabId = await s.firstTab();
        const cross = other.origin.replace("127.0.0.1", "localhost");
        await s.ok("navigate", { url: s.fixtures.url(`/frames.html?cross=${cross}`), tabId });
        const waitFor = (args: Record<string, unknown>) => s.call("wait_for", { tabId, ...args });

        for (const [where, text] of [["same-origin", "Same log"], ["cross-site", "Cross log"]]) {
          await t.step(
            `text in a ${where} frame is seen, and is not gone while shown`,
            async () => {
              const seen = await waitFor({ text, state: "visible", timeout_ms: 15_000 });
              assert(!seen.isError, s.text(seen));
              assertMatch(s.text(seen), /^Held after/);
              const gone = await waitFor({ text, state: "gone", timeout_ms: 1_500 });
              assertEquals(gone.isError, true, s.text(gone));
              assertMatch(s.text(gone), /Timed out after 1\.50 s: text "[^"]+" gone did not hold/);
            },
          );
        }

        await t.step("text that goes away in a cross-site frame is then gone", async () => {
          const frame = await refOf(s, tabId, /iframe "Cross-origin log"/);
          await s.ok("computer", { action: "scroll_to", ref: frame, tabId });
          // The frame is removed by the page itself; its text then shows nowhere.
          await evaluate(
            s,
            tabId,
            "setTimeout(() => document.getElementById('cross').remove(), 300); 1",
          );
          const gone = await waitFor({ text: "Cross log", state: "gone", timeout_ms: 15_000 });
          assert(!gone.isError, s.text(gone));
        });
      } finally {
        await other.close();
      }
    });

    await t.step(
      "playwright keyboard and focus cases: editing keys, focus moves, shortcuts",
      async (t) => {
        const tabId = await s.firstTab();
        const onPage = (name: string, fn: () => Promise<void>) =>
          t.step(name, async () => {
            await freshPage(s, tabId, "/keys_cases.html");
            await fn();
          });
        const click = async (pattern: RegExp) =>
          await s.ok("computer", {
            action: "left_click",
            ref: await refOf(s, tabId, pattern),
            tabId,
          });
        const value = (id: string) => evaluate(s, tabId, `document.getElementById('${id}').value`);
        const focusedId = () => evaluate(s, tabId, "document.activeElement.id");

        await onPage("traverse focus: type, Tab, type (page-focus)", async () => {
          await click(/textbox "First"/);
          await type(s, tabId, "First");
          await press(s, tabId, "Tab");
          await type(s, tabId, "Last");
          assertEquals(await value("first"), "First");
          assertEquals(await value("last"), "Last");
          assertEquals(await evaluate(s, tabId, "String(window.seen.lastFocused)"), "1");
        });

        await onPage("traverse focus in all directions (page-focus)", async () => {
          await press(s, tabId, "Tab");
          assertEquals(await focusedId(), "first");
          await press(s, tabId, "Tab Tab");
          assertEquals(await focusedId(), "press");
          await press(s, tabId, "shift+Tab");
          assertEquals(await focusedId(), "last");
          await press(s, tabId, "ISO_Left_Tab");
          assertEquals(await focusedId(), "first");
        });

        await onPage("Space and Enter on a focused button click it", async () => {
          await evaluate(s, tabId, "document.getElementById('press').focus(); 1");
          await press(s, tabId, "space");
          assertEquals(await evaluate(s, tabId, "String(window.seen.clicks)"), "1");
          await press(s, tabId, "Return");
          assertEquals(await evaluate(s, tabId, "String(window.seen.clicks)"), "2");
        });

        await onPage("keys the page cancels type nothing (not type canceled events)", async () => {
          await click(/textbox "Guarded"/);
          await type(s, tabId, "Hello World!");
          assertEquals(await value("guarded"), "He Wrd!");
        });

        await onPage(
          "ctrl+shift+Left selects the last word (move around the selection)",
          async () => {
            await click(/textbox "Editor"/);
            await type(s, tabId, "Hello World");
            await press(s, tabId, "ctrl+shift+Left");
            assertEquals(await evaluate(s, tabId, "getSelection().toString()"), "World");
          },
        );

        await onPage("select all, copy and paste twice (simple copy-pasting)", async () => {
          await click(/textbox "Editor"/);
          await type(s, tabId, "123");
          await press(s, tabId, "ctrl+a ctrl+c ctrl+v ctrl+v");
          assertEquals(
            await evaluate(s, tabId, "document.getElementById('editor').textContent"),
            "123123",
          );
        });

        await onPage("undo and redo (support undo-redo)", async () => {
          await click(/textbox "Editor"/);
          await type(s, tabId, "123");
          const text = () => evaluate(s, tabId, "document.getElementById('editor').textContent");
          await press(s, tabId, "ctrl+z");
          assertEquals(await text(), "");
          await press(s, tabId, "ctrl+shift+z");
          assertEquals(await text(), "123");
        });

        await onPage("type repeatedly in contenteditables in a shadow root", async () => {
          await click(/textbox "First box"/);
          await type(s, tabId, "This is the first box.");
          await click(/textbox "Second box"/);
          await type(s, tabId, "This is the second box.");
          const boxes = "JSON.stringify(Array.from(document.querySelector('shadow-editors')" +
            ".shadowRoot.querySelectorAll('.editor'), (e) => e.textContent))";
          assertEquals(
            await evaluate(s, tabId, boxes),
            JSON.stringify(["This is the first box.", "This is the second box."]),
          );
        });

        await onPage("Page_Down scrolls the page (scroll with PageDown)", async () => {
          await press(s, tabId, "Page_Down");
          await pollUntil(
            () => evaluate(s, tabId, "String(scrollY)"),
            (y) => Number(y) > 0,
            "the page to scroll",
          );
        });

        await onPage("emoji type as they are (type emoji)", async () => {
          await click(/textbox "First"/);
          const text = "👹 Tokyo street Japan 🇯🇵";
          await type(s, tabId, text);
          assertEquals(await value("first"), text);
        });
      },
    );

    await t.step(
      "playwright fill cases: input types, values the browser refuses, clearing",
      async (t) => {
        const tabId = await s.firstTab();
        await freshPage(s, tabId, "/fill_types.html");
        const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
        /** The ref of the field whose line names `name`. */
        const ref = (name: string) => {
          const line = outline.split("\n").find((line) => line.includes(`"${name}"`));
          const found = line && /\[(ref_\d+)\]/.exec(line)?.[1];
          assert(found, `a ref for ${name} in:\n${outline}`);
          return found;
        };
        const value = (id: string) => evaluate(s, tabId, `document.getElementById('${id}').value`);

        await t.step("each input type takes a value of its format", async () => {
          const cases: [string, string, string][] = [
            ["Range", "range", "42"],
            ["Colour", "color", "#aaaaaa"],
            ["Date", "date", "2020-03-02"],
            ["Time", "time", "13:15"],
            ["Month", "month", "2020-03"],
            ["Week", "week", "2020-W50"],
            ["Moment", "datetime-local", "2020-03-02T05:15"],
            ["Amount", "number", "-10e5"],
          ];
          for (const [name, id, given] of cases) {
            const set = await s.ok("form_input", { ref: ref(name), value: given, tabId });
            assertMatch(s.text(set), /^Set \S+ \[ref_\d+\] to "[^"]+"\.$/, name);
            assertEquals(await value(id), given, name);
          }
          // A colour in capitals is the same colour; the browser keeps it in small letters.
          await s.ok("form_input", { ref: ref("Colour"), value: "#AbCd00", tabId });
          assertEquals(await value("color"), "#abcd00");
        });

        await t.step("a value the browser refuses is reported, not taken as set", async () => {
          for (
            const [name, id, given] of [["Range", "range", "foo"], ["Colour", "color", "bad"], [
              "Amount",
              "number",
              "abc",
            ]]
          ) {
            const set = await s.ok("form_input", { ref: ref(name), value: given, tabId });
            assertMatch(s.text(set), /but the page changed it/, `${name}: ${s.text(set)}`);
            assertEquals(plain(set)?.valueKept, false, name);
            assert(await value(id) !== given, name);
          }
        });

        await t.step("several text-like types, clearing, and fields back to back", async () => {
          for (const type of ["password", "search", "tel", "text", "url", "invalid-type"]) {
            await evaluate(
              s,
              tabId,
              `document.getElementById('kind').setAttribute('type', '${type}'); 1`,
            );
            await s.ok("form_input", { ref: ref("Kind"), value: `text ${type}`, tabId });
            // The page's answer is compared in the page: a password's value would come back redacted.
            assertEquals(
              await evaluate(
                s,
                tabId,
                `String(document.getElementById('kind').value === 'text ${type}')`,
              ),
              "true",
              type,
            );
          }
          await s.ok("form_input", { ref: ref("Kind"), value: "", tabId });
          assertEquals(await value("kind"), "");
          await s.ok("form_input", { ref: ref("One"), value: "first value", tabId });
          await s.ok("form_input", { ref: ref("Two"), value: "second value", tabId });
          assertEquals(await value("one"), "first value");
          assertEquals(await value("two"), "second value");
        });

        await t.step("types that take no text are refused by their type", async () => {
          for (const type of ["button", "file", "image", "reset", "submit"]) {
            await evaluate(
              s,
              tabId,
              `document.getElementById('kind').setAttribute('type', '${type}'); 1`,
            );
            const refused = await s.call("form_input", { ref: ref("Kind"), value: "x", tabId });
            assertEquals(refused.isError, true, type);
            assertMatch(s.text(refused), new RegExp(`an input of type ${type}, which form_input`));
          }
        });

        await t.step(
          "a fill whose input handler navigates (not throw when fill navigates)",
          async () => {
            await evaluate(
              s,
              tabId,
              "document.getElementById('date').addEventListener('input', () => " +
                "location.href = '/index.html'); 1",
            );
            const set = await s.call("form_input", {
              ref: ref("Date"),
              value: "2021-04-05",
              tabId,
            });
            assert(!set.isError, s.text(set));
            assertMatch(s.text(set), /^Set textbox \[ref_\d+\] to "2021-04-05"/);
            // The answer says the page went elsewhere: the field it names is no longer shown.
            assertMatch(s.text(set), /The page then went to [\s\S]*\/index\.html/);
            assertEquals(plain(set)?.urlChanged, s.fixtures.url("/index.html"), s.text(set));
            assertEquals(await evaluate(s, tabId, "location.pathname"), "/index.html");
            // Typing into a field whose handler navigates says so as well.
            await freshPage(s, tabId, "/fill_types.html");
            await evaluate(
              s,
              tabId,
              "const one = document.getElementById('one'); one.focus(); " +
                "one.addEventListener('input', () => location.href = '/index.html?typed'); 1",
            );
            const typed = await s.ok("computer", { action: "type", text: "x", tabId });
            assertMatch(s.text(typed), /Now at [\s\S]*\/index\.html\?typed/);
          },
        );
      },
    );

    await t.step("playwright fill case: existing value and selection are replaced", async () => {
      const tabId = await s.firstTab();
      await freshPage(s, tabId, "/playwright/input/textarea.html");
      const outline = s.text(await s.ok("read_page", { tabId, filter: "all" }));
      const refs = [...outline.matchAll(/textbox[^\n]*\[(ref_\d+)\]/g)].map((m) => m[1]);
      // textarea.html: a textarea, an input, a contenteditable div, in that order.
      assertEquals(refs.length, 3, outline);
      const [area, input, editable] = refs;
      await s.ok("form_input", { ref: area, value: "some value", tabId });
      assertEquals(await evaluate(s, tabId, "window.result"), "some value");
      await evaluate(s, tabId, "document.querySelector('input').value = 'value one'; 1");
      await s.ok("form_input", { ref: input, value: "another value", tabId });
      assertEquals(await evaluate(s, tabId, "window.result"), "another value");
      await evaluate(
        s,
        tabId,
        "const i = document.querySelector('input'); i.selectionStart = 1; i.selectionEnd = 2; 1",
      );
      await s.ok("form_input", { ref: input, value: "maybe this one", tabId });
      assertEquals(await evaluate(s, tabId, "window.result"), "maybe this one");
      await evaluate(
        s,
        tabId,
        "const d = document.querySelector('div[contenteditable]'); " +
          "d.innerHTML = 'some text <span>some more text<span> and even more text'; " +
          "const r = document.createRange(); r.selectNodeContents(d.querySelector('span')); " +
          "getSelection().removeAllRanges(); getSelection().addRange(r); 1",
      );
      await s.ok("form_input", { ref: editable, value: "replace with this", tabId });
      assertEquals(
        await evaluate(s, tabId, "document.querySelector('div[contenteditable]').textContent"),
        "replace with this",
      );
    });

    await t.step("playwright set-input-files cases through file_upload", async (t) => {
      const tabId = await s.firstTab();
      const fileRef = () => refOf(s, tabId, /button \[ref_\d+\] type=file/);
      /** The files the page's input holds: name, type and text, read in the page. */
      const held = (where = "document.querySelector('input[type=file]')") =>
        evaluate(
          s,
          tabId,
          `Promise.all(Array.from(${where}.files, async (f) => ` +
            "[f.name, f.type, await f.text()].join('|'))).then((l) => l.join(';'))",
        );

      await t.step("upload the file, and one with spaces in its name (should upload)", async () => {
        await freshPage(s, tabId, "/playwright/input/fileupload.html");
        const ref = await fileRef();
        await s.ok("file_upload", {
          ref,
          files: [textFile("file-to-upload.txt", "contents of the file")],
          tabId,
        });
        assertEquals(await held(), "file-to-upload.txt|text/plain|contents of the file");
        await s.ok("file_upload", {
          ref,
          files: [textFile("file to upload.txt", "contents of the file")],
          tabId,
        });
        assertEquals(await held(), "file to upload.txt|text/plain|contents of the file");
      });

      await t.step("types are given or detected (set from memory, detect mime type)", async () => {
        await freshPage(s, tabId, "/playwright/input/fileupload-multi.html");
        const ref = await fileRef();
        await s.ok("file_upload", {
          ref,
          files: [
            textFile("test.txt", "this is a test", "text/plain"),
            textFile("pptr.png", "not really a picture"),
          ],
          tabId,
        });
        assertEquals(
          await held(),
          "test.txt|text/plain|this is a test;pptr.png|image/png|not really a picture",
        );
      });

      await t.step("input then change, each time files change (emit events)", async () => {
        await freshPage(s, tabId, "/playwright/input/fileupload-multi.html");
        const ref = await fileRef();
        await evaluate(
          s,
          tabId,
          "window.events = []; const i = document.querySelector('input[type=file]'); " +
            "for (const type of ['input', 'change']) i.addEventListener(type, (e) => " +
            "window.events.push(e.type + ':' + e.composed)); " +
            "for (const type of ['input', 'change']) document.body.addEventListener(type, (e) => " +
            "window.events.push('body ' + e.type)); 1",
        );
        await s.ok("file_upload", { ref, files: [textFile("a.txt", "a")], tabId });
        await s.ok("file_upload", { ref, files: [textFile("b.txt", "b")], tabId });
        assertEquals(
          await evaluate(s, tabId, "window.events.join()"),
          [
            "input:true",
            "body input",
            "change:false",
            "body change",
            "input:true",
            "body input",
            "change:false",
            "body change",
          ].join(),
        );
        assertEquals(await held(), "b.txt|text/plain|b");
      });
    });
  } finally {
    await s.close();
  }
});

/** A file for file_upload: its name, its text as base64, and a type when given. */
function textFile(name: string, text: string, mimeType?: string) {
  return { name, data: btoa(text), ...(mimeType ? { mimeType } : {}) };
}
