/**
 * Whether `FormData` keeps the `File` objects put in it. Deno and Node do,
 * as the standard says; Bun's `FormData` stores a copy of each file's
 * bytes and gives back a plain `File`, so a `File` subclass that reads its
 * bytes from elsewhere (`DiskFile`) comes back empty and without its path.
 *
 * @module
 */

let keeps: boolean | undefined;

/** Whether a `File` set in a `FormData` comes back as the same object. */
export function formDataKeepsFiles(): boolean {
  if (keeps === undefined) {
    const file = new File([], "probe");
    const form = new FormData();
    form.set("probe", file);
    keeps = form.get("probe") === file;
  }
  return keeps;
}
