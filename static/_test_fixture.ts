// Test helper: a served folder next to a secret one, with symbolic links
// that stay inside the root and ones that leave it.

export interface Fixture {
  /** The parent of `public/` and `private/`. */
  dir: string;
  /** The served folder. */
  root: string;
  /** The text of `private/secret.txt`, which must never be served. */
  secret: string;
  /** 100,000 bytes of `public/data.bin` (byte i is i % 251). */
  data: Uint8Array;
  remove(): Promise<void>;
}

export async function makeFixture(): Promise<Fixture> {
  const dir = await Deno.makeTempDir({ prefix: "static-" });
  const root = `${dir}/public`;
  const secret = "TOP-SECRET-" + crypto.randomUUID();
  await Deno.mkdir(`${root}/sub`, { recursive: true });
  await Deno.mkdir(`${root}/empty-dir`);
  await Deno.mkdir(`${dir}/private`);
  await Deno.writeTextFile(`${dir}/private/secret.txt`, secret);
  await Deno.writeTextFile(`${dir}/public-secret.txt`, secret);
  await Deno.writeTextFile(`${root}/index.html`, "<h1>home</h1>");
  await Deno.writeTextFile(`${root}/app.css`, "body{margin:0}");
  await Deno.writeTextFile(`${root}/sub/index.html`, "<h1>sub</h1>");
  await Deno.writeTextFile(`${root}/sub/a b.txt`, "spaced");
  await Deno.writeTextFile(`${root}/.env`, "KEY=value");
  await Deno.writeTextFile(`${root}/empty.txt`, "");
  await Deno.writeTextFile(`${root}/unknown.zzz`, "?");
  const data = new Uint8Array(100_000).map((_, i) => i % 251);
  await Deno.writeFile(`${root}/data.bin`, data);
  await Deno.symlink(`${root}/app.css`, `${root}/alias.css`);
  await Deno.symlink(`${root}/app.css`, `${root}/style.txt`);
  await Deno.symlink(`${dir}/private/secret.txt`, `${root}/leak.txt`);
  await Deno.symlink(`${dir}/private`, `${root}/leak-dir`);
  return {
    dir,
    root,
    secret,
    data,
    remove: () => Deno.remove(dir, { recursive: true }),
  };
}
