// Test helper: runs code from the docs the way a new user would, in a
// project folder of its own whose deno.json maps `@fetchkit/toolkit/...`
// to this checkout (what `deno add jsr:@fetchkit/toolkit` gives a user).

const repo = new URL("../", import.meta.url);

/** The ```ts blocks of a markdown file, in order, each with its heading. */
export async function codeBlocks(
  file: string,
): Promise<{ heading: string; code: string }[]> {
  const text = await Deno.readTextFile(new URL(file, repo));
  const blocks: { heading: string; code: string }[] = [];
  let heading = "";
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("#")) heading = lines[i].replace(/^#+\s*/, "");
    if (lines[i] === "```ts") {
      const end = lines.indexOf("```", i + 1);
      // Unterminated, indexOf's -1 would restart the scan forever.
      if (end === -1) {
        throw new Error(
          `${file}:${i + 1}: a \`\`\`ts block without its closing \`\`\``,
        );
      }
      blocks.push({ heading, code: lines.slice(i + 1, end).join("\n") });
      i = end;
    }
  }
  return blocks;
}

/** The first ```ts block under `heading` in `file`. */
export async function codeUnder(
  file: string,
  heading: string,
): Promise<string> {
  const block = (await codeBlocks(file)).find((b) => b.heading === heading);
  if (block === undefined) {
    throw new Error(`${file}: no ts block under "${heading}"`);
  }
  return block.code;
}

/** A user's project folder: deno.json imports the package from this checkout. */
export async function makeProject(): Promise<
  { dir: string; remove(): Promise<void> }
> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", repo)),
  );
  const imports: Record<string, string> = { ...config.imports };
  // Development dependencies (zod, redis, ... used by doc examples) live in
  // package.json; the user's project gets them as npm: imports.
  const { devDependencies = {} } = JSON.parse(
    await Deno.readTextFile(new URL("package.json", repo)),
  );
  for (const [name, version] of Object.entries<string>(devDependencies)) {
    imports[name] ??= `npm:${name}@${version}`;
    imports[`${name}/`] ??= `npm:/${name}@${version}/`;
  }
  for (const [subpath, file] of Object.entries<string>(config.exports)) {
    imports[`${config.name}${subpath.slice(1)}`] = new URL(file, repo).href;
  }
  const dir = await Deno.makeTempDir({ prefix: "fetchkit-user-" });
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({ imports }, null, 2),
  );
  return { dir, remove: () => Deno.remove(dir, { recursive: true }) };
}

/** A process started from a shell command line, as a user types it. */
export interface Running {
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `command` (words split on spaces) in `dir` and waits for Deno.serve's
 * "Listening on" line; the port comes from that line.
 */
export async function startCommand(
  dir: string,
  command: string,
  env: Record<string, string> = {},
): Promise<Running> {
  const [program, ...args] = command.split(/\s+/);
  if (program !== "deno") throw new Error(`not a deno command: ${command}`);
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: dir,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
    }
  };
  const done = Promise.all([collect(child.stdout), collect(child.stderr)]);
  const deadline = Date.now() + 60_000;
  let origin: string | undefined;
  while (origin === undefined) {
    origin = /Listening on (http:\/\/[^/\s]+)\//.exec(text)?.[1];
    if (origin !== undefined) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await done;
      throw new Error(`"${command}" did not start:\n${text}`);
    }
    const exited = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, 50, false)),
    ]);
    if (exited) {
      await done;
      throw new Error(`"${command}" exited:\n${text}`);
    }
  }
  return {
    origin: origin.replace("localhost", "127.0.0.1"),
    output: () => text,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      await done;
    },
  };
}
