import { assertEquals } from "../../../tests/support/assert.ts";
import { uploadFiles } from "./file_upload.ts";

Deno.test("a file's type comes from its own extension, never from what every object has", () => {
  const typeOf = (name: string) => uploadFiles({ files: [{ name, data: "aGVsbG8=" }] }, 1)[0].type;
  assertEquals(typeOf("notes.txt"), "text/plain");
  assertEquals(typeOf("photo.JPG"), "image/jpeg");
  for (const extension of ["constructor", "toString", "__proto__", "valueOf"]) {
    assertEquals(typeOf(`evil.${extension}`), "application/octet-stream", extension);
  }
});
