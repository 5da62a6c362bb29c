// The install size of the dependencies passkeys and password reset add:
// each npm package with everything it pulls in, as unpacked in Deno's npm
// cache (what `deno install` or `npm install` puts on disk), and how much
// of it is code (.js/.mjs/.cjs) that a bundle could take in.
//
//   deno run --allow-read --allow-write=/tmp --allow-run bench/passkeys/install_size.ts
const PACKAGES = [
  ["npm:@simplewebauthn/server@14.0.3", "./passkeys (runtime)"],
  ["npm:nodemailer@10.6.0", "example app: SMTP mail"],
  ["npm:smtp-server@3.21.6", "tests only: SMTP server"],
];

// Outside this repo, so its deno.json and package.json do not join in.
const outside = await Deno.makeTempDir({ prefix: "install-size-" });

async function denoJson(args: string[]) {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: [...args, "--json"],
    cwd: outside,
    stdout: "piped",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(stdout));
}

async function sizeOf(dir: string): Promise<{ all: number; js: number }> {
  let all = 0, js = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      const inner = await sizeOf(path);
      all += inner.all;
      js += inner.js;
    } else if (entry.isFile) {
      const { size } = await Deno.stat(path);
      all += size;
      if (/\.(m|c)?js$/.test(entry.name)) js += size;
    }
  }
  return { all, js };
}

const { npmCache } = await denoJson(["info"]);
const kb = (n: number) => `${Math.round(n / 1024)} KiB`;
console.log("| package | for | packages | unpacked | of it .js |");
console.log("| --- | --- | ---: | ---: | ---: |");
for (const [specifier, why] of PACKAGES) {
  const info = await denoJson(["info", specifier]);
  let all = 0, js = 0;
  const names = Object.keys(info.npmPackages);
  for (const id of names) {
    const at = id.lastIndexOf("@");
    const dir = `${npmCache}/registry.npmjs.org/${id.slice(0, at)}/${
      id.slice(at + 1)
    }`;
    const size = await sizeOf(dir);
    all += size.all;
    js += size.js;
  }
  console.log(
    `| \`${specifier.slice(4)}\` | ${why} | ${names.length} | ${kb(all)} | ${
      kb(js)
    } |`,
  );
}
await Deno.remove(outside);
