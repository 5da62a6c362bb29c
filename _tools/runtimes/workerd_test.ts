/**
 * The router, responses, `html`, cookie sessions, `formData()`, the
 * logger and passkeys (both ceremonies, with a software authenticator) in Cloudflare's `workerd` (the npm package `workerd` ships the
 * binary; `install.sh` installs it): `workerd_worker.ts` bundled for the
 * browser platform and served by `workerd serve` on a loopback port, with
 * no compatibility flags (so no `node:` modules). Missing `workerd` fails
 * under `CI` or `TOOLKIT_REQUIRE_ALL`, else skips with a notice.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./bundle.ts";
import { SoftAuthenticator } from "../../passkeys/_test_authenticator.ts";

const HERE = join(ROOT, "_tools/runtimes");
const OUT = join(HERE, ".out");
const REQUIRE_ALL = Deno.env.get("CI") !== undefined ||
  Deno.env.get("TOOLKIT_REQUIRE_ALL") !== undefined;

function workerdBinary(): string | undefined {
  const os = Deno.build.os === "darwin" ? "darwin" : "linux";
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "64";
  const path = join(
    HERE,
    `node_modules/@cloudflare/workerd-${os}-${arch}/bin/workerd`,
  );
  return existsSync(path) ? path : undefined;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function untilUp(base: string, child: Deno.ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const response = await fetch(`${base}/log`);
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill("SIGKILL");
  throw new Error("workerd did not start within 10 s");
}

Deno.test("Cloudflare workerd: router, html, JSON, redirect, cookie sessions, formData, logger, waitUntil, passkeys", async () => {
  let binary = workerdBinary();
  if (binary === undefined && existsSync(join(HERE, "install.sh"))) {
    await new Deno.Command("bash", {
      args: [join(HERE, "install.sh")],
      stdout: "null",
      stderr: "inherit",
    }).output().catch(() => undefined);
    binary = workerdBinary();
  }
  if (binary === undefined) {
    const what = "workerd is not installed (_tools/runtimes/install.sh)";
    if (REQUIRE_ALL) throw new Error(`${what} (required under CI)`);
    console.log(`%cskipped: ${what}`, "color: yellow");
    return;
  }
  await Deno.mkdir(OUT, { recursive: true });
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "-o",
      join(OUT, "worker.mjs"),
      join(HERE, "workerd_worker.ts"),
    ],
    cwd: ROOT,
    stderr: "piped",
  }).output();
  assert.ok(built.success, new TextDecoder().decode(built.stderr));
  const port = freePort();
  const config = join(OUT, "worker.capnp");
  await Deno.writeTextFile(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.mjs", esModule = embed "worker.mjs") ],
  compatibilityDate = "2025-09-01",
);
`,
  );
  const child = new Deno.Command(binary, {
    args: ["serve", config],
    cwd: OUT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  try {
    await untilUp(base, child);

    // waitUntil(): answered before the work, which goes on afterwards.
    const asked = performance.now();
    const wait = await fetch(`${base}/wait/first`);
    assert.equal(await wait.text(), "answered");
    assert.ok(performance.now() - asked < 300, "answered before the work");
    assert.equal(await (await fetch(`${base}/waited`)).text(), "");
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(await (await fetch(`${base}/waited`)).text(), "first");

    const home = await fetch(`${base}/`);
    assert.equal(home.status, 200);
    assert.match(home.headers.get("content-type")!, /^text\/html/);
    assert.equal(await home.text(), "<h1>&lt;hello&gt;</h1>");

    assert.deepEqual(await (await fetch(`${base}/users/7`)).json(), {
      id: "7",
    });

    // A valibot body schema where code from text is refused.
    const order = (body: unknown) =>
      fetch(`${base}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const good = await order({ sku: "A", qty: 2, extra: 1 });
    assert.equal(good.status, 200);
    assert.deepEqual(await good.json(), { sku: "A", qty: 2 });
    const bad = await order({ sku: "A", qty: 1.5 });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys((await bad.json()).fieldErrors), ["qty"]);

    const go = await fetch(`${base}/go`, { redirect: "manual" });
    assert.equal(go.status, 302);
    assert.equal(go.headers.get("location"), "/");
    await go.body?.cancel();

    let cookie = "";
    for (const expected of ["1", "2", "3"]) {
      const response = await fetch(`${base}/count`, {
        headers: cookie ? { cookie } : {},
      });
      assert.equal(await response.text(), expected);
      cookie = response.headers.get("set-cookie")!.split(";")[0];
    }
    // A tampered cookie starts a new session.
    const tampered = await fetch(`${base}/count`, {
      headers: { cookie: cookie.slice(0, -2) + "xx" },
    });
    assert.equal(await tampered.text(), "1");

    const body = new FormData();
    body.set("name", "ada");
    body.set("file", new File(["x".repeat(100_000)], "a.txt"));
    const form = await fetch(`${base}/form`, { method: "POST", body });
    assert.deepEqual(await form.json(), { name: "ada", size: 100_000 });

    const malformed = await fetch(`${base}/form`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=x" },
      body: "--x\r\nnot a part",
    });
    assert.equal(malformed.status, 400);
    await malformed.body?.cancel();

    const missing = await fetch(`${base}/nope`);
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), "Not Found");

    const statics = await fetch(`${base}/static`);
    assert.equal(statics.status, 501);
    assert.match(await statics.text(), /serveStatic\(\) needs a file system/);
    // The upload's error reaches the router's onError: 500, no details. The
    // file is small: workerd answers at the first part and closes, and a
    // body still being written then fails with a broken pipe.
    const small = new FormData();
    small.set("file", new File(["x"], "a.txt"));
    const disk = await fetch(`${base}/disk`, { method: "POST", body: small });
    assert.equal(disk.status, 500);
    assert.equal(await disk.text(), "Internal Server Error");

    // Passkeys: registration and sign-in, a replay refused with a 400.
    const key = new SoftAuthenticator();
    let jar = "";
    const post = async (path: string, body: unknown = {}) => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { cookie: jar, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const set = response.headers.get("set-cookie");
      if (set) jar = set.split(";")[0];
      return { status: response.status, text: await response.text() };
    };
    const origin = "http://localhost:8000";
    const creation = await post("/passkeys/register/options");
    const made = await post(
      "/passkeys/register",
      await key.create(JSON.parse(creation.text), origin),
    );
    assert.equal(made.status, 200, made.text);
    const request = await post("/passkeys/login/options");
    const assertion = await key.get(JSON.parse(request.text), origin);
    const signedIn = await post("/passkeys/login", assertion);
    assert.deepEqual(JSON.parse(signedIn.text), { userId: "1", counter: 1 });
    const replay = await post("/passkeys/login", assertion);
    assert.equal(replay.status, 400);
    assert.match(replay.text, /no authentication challenge/);

    assert.ok(Number(await (await fetch(`${base}/log`)).text()) >= 9);
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // Exited already; its stderr says why.
    }
    const { stderr } = await child.output();
    const errors = new TextDecoder().decode(stderr);
    // The disk upload's error is logged with console.error, and nothing else.
    assert.doesNotMatch(
      errors.replace(
        /.*createDiskUploadHandler\(\) needs a file system.*/g,
        "",
      ),
      /Uncaught/,
      errors,
    );
  }
});
