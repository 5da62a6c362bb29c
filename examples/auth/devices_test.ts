// The devices signed in, over HTTP in process, with sessions on Deno KV and
// on a real redis-server: a stolen session cookie signed out from another
// device is refused at once; "Sign out all other devices"; a reset ends
// every session.
import assert from "node:assert/strict";
import { createClient } from "redis";
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { createApp } from "./app.ts";
import { Client, read, SECRET } from "./_test_app.ts";
import { createMailbox, type Mailbox } from "./_test_mailbox.ts";
import { createSessionStorage, type SessionStorageKind } from "./sessions.ts";
import { deviceSessionsOf } from "./devices.ts";
import { deviceName } from "./user_agent.ts";
import { redisServerOrSkip, startRedis } from "../../_tools/redis.ts";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const WINDOWS_FIREFOX =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";
const MAC_CHROME =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** A client whose requests carry `userAgent`. */
class Device extends Client {
  constructor(app: Router, readonly userAgent: string, address?: string) {
    super(app, address);
  }
  override request(
    path: string,
    init: RequestInit & { form?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("user-agent", this.userAgent);
    return super.request(path, { ...init, headers });
  }
}

/** The sign-out forms' handles on a page, other devices only. */
function handles(body: string): string[] {
  return [...body.matchAll(/action="\/profile\/sessions\/([\w-]+)"/g)]
    .map((m) => m[1]).filter((h) => h !== "others");
}

async function devicesFlow(app: Router, box: Mailbox): Promise<void> {
  const laptop = new Device(app, MAC_CHROME, "192.0.2.10");
  await laptop.register("ada@example.com", "ada password");
  const phone = new Device(app, IPHONE, "198.51.100.7");
  await phone.login("ada@example.com", "ada password");
  assert.equal((await phone.get("/dashboard")).status, 200);
  // Someone copies the phone's cookie to a machine of their own.
  const thief = new Device(app, WINDOWS_FIREFOX, "203.0.113.66");
  thief.cookies = new Map(phone.cookies);
  assert.equal((await thief.get("/dashboard")).status, 200);

  const page = await read(await laptop.get("/profile/security"));
  assert.equal(page.status, 200);
  assert.match(
    page.body,
    /Chrome 126 on macOS<\/strong>\s*<span class="badge verified">this device/,
  );
  assert.match(page.body, /Safari 17 on iOS/);
  assert.match(page.body, /198\.51\.100\.7/);
  assert.match(page.body, /Signed in<\/dt>/);
  assert.match(page.body, /Last seen<\/dt>/);
  assert.match(page.body, /Sign out all other devices/);
  // No session id is on the page: only handles.
  for (const [, id] of phone.cookies) {
    assert.ok(
      !page.body.includes(id.split(".")[0]),
      "a session id is on the page",
    );
  }
  const [handle, ...rest] = handles(page.body);
  assert.ok(handle);
  assert.deepEqual(rest, []);

  // Another user cannot end Ada's session with its handle.
  const eve = new Device(app, WINDOWS_FIREFOX);
  await eve.register("eve@example.com");
  const foreign = await eve.request(`/profile/sessions/${handle}`, {
    method: "POST",
    form: { _method: "DELETE" },
  });
  assert.equal(foreign.status, 303);
  assert.match(
    (await read(await eve.get("/profile/security"))).body,
    /That device is no longer signed in/,
  );
  assert.equal((await thief.get("/dashboard")).status, 200);

  // Ada signs the phone out from the laptop: the stolen copy is refused at once.
  const ended = await laptop.request(`/profile/sessions/${handle}`, {
    method: "POST",
    form: { _method: "DELETE" },
  });
  assert.equal(ended.status, 303);
  assert.equal(ended.headers.get("location"), "/profile/security#devices");
  const refused = await thief.get("/dashboard");
  assert.equal(refused.status, 302);
  assert.match(refused.headers.get("location")!, /^\/auth\/login/);
  assert.equal((await phone.get("/dashboard")).status, 302);
  const after = await read(await laptop.get("/profile/security"));
  assert.match(after.body, /That device is signed out/);
  assert.deepEqual(handles(after.body), []);
  assert.match(after.body, /No other device is signed in/);
  assert.equal((await laptop.get("/dashboard")).status, 200);

  // A device that logs out leaves the list (its guest session keeps only
  // the "signed out" notice).
  const kiosk = new Device(app, WINDOWS_FIREFOX, "198.51.100.9");
  await kiosk.login("ada@example.com", "ada password");
  assert.equal(
    handles((await read(await laptop.get("/profile/security"))).body).length,
    1,
  );
  await kiosk.post("/auth/logout");
  assert.match((await read(await kiosk.get("/auth/login"))).body, /signed out/);
  assert.deepEqual(
    handles((await read(await laptop.get("/profile/security"))).body),
    [],
  );

  // "Sign out all other devices".
  const tablet = new Device(app, WINDOWS_FIREFOX, "198.51.100.8");
  await tablet.login("ada@example.com", "ada password");
  await phone.login("ada@example.com", "ada password");
  assert.equal(
    handles((await read(await laptop.get("/profile/security"))).body).length,
    2,
  );
  const others = await laptop.post("/profile/sessions/others");
  assert.equal(others.status, 303);
  assert.match(
    (await read(await laptop.get("/profile/security"))).body,
    /Signed out 2 other devices/,
  );
  assert.equal((await tablet.get("/dashboard")).status, 302);
  assert.equal((await phone.get("/dashboard")).status, 302);
  assert.equal((await laptop.get("/dashboard")).status, 200);

  // A password reset ends every session, and empties the list.
  await phone.login("ada@example.com", "ada password");
  await new Client(app).post("/password/forgot", { email: "ada@example.com" });
  const link = box.link(await box.next("ada@example.com", /Reset/));
  await new Client(app).post(link, { password: "new password" });
  assert.equal((await phone.get("/dashboard")).status, 302);
  assert.equal((await laptop.get("/dashboard")).status, 302);
  const fresh = new Device(app, MAC_CHROME);
  await fresh.login("ada@example.com", "new password");
  assert.deepEqual(
    handles((await read(await fresh.get("/profile/security"))).body),
    [],
  );
}

async function appOn(
  kind: SessionStorageKind,
  redis?: unknown,
) {
  const kv = await Deno.openKv(":memory:");
  const box = createMailbox();
  const sessions = createSessionStorage({
    kind,
    kv,
    secrets: [SECRET],
    secure: false,
    redis: redis as never,
  });
  const app = await createApp({
    kv,
    sessions,
    bcryptCost: 4,
    log: null,
    mailer: box.mailer,
    admin: { email: "admin@example.com", password: "admin-password" },
  });
  return { app, kv, box, listing: deviceSessionsOf(sessions) };
}

Deno.test("devices on Deno KV: a stolen session cookie signed out from another device is refused at once", async (t) => {
  const { app, kv, box, listing } = await appOn("kv");
  try {
    if (!listing) {
      console.log(
        "skipping: this session storage cannot list a user's sessions",
      );
      return;
    }
    await t.step("flow", () => devicesFlow(app, box));
  } finally {
    kv.close();
  }
});

Deno.test({
  name:
    "devices on Redis: a stolen session cookie signed out from another device is refused at once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const path = await redisServerOrSkip();
    if (!path) return;
    const server = await startRedis(path);
    const client = createClient({ url: server.url });
    await client.connect();
    const { app, kv, box, listing } = await appOn("redis", client);
    try {
      if (!listing) {
        console.log(
          "skipping: this session storage cannot list a user's sessions",
        );
        return;
      }
      await devicesFlow(app, box);
    } finally {
      kv.close();
      await client.quit();
      await server.stop();
    }
  },
});

Deno.test("devices with signed cookies: the page says they cannot be listed, and what to do", async () => {
  const { app, kv } = await appOn("cookie");
  try {
    const ada = new Client(app);
    await ada.register("ada@example.com");
    const page = await read(await ada.get("/profile/security"));
    assert.match(page.body, /cannot list the devices/);
    assert.match(page.body, /change your password<\/a>/);
    const refused = await ada.post("/profile/sessions/others");
    assert.equal(refused.status, 303);
    assert.match(
      (await read(await ada.get("/profile/security"))).body,
      /Change your password \(Profile, Password\) to sign out every other device/,
    );
  } finally {
    kv.close();
  }
});

Deno.test("device names from user agents", () => {
  assert.deepEqual(deviceName(IPHONE), { browser: "Safari 17", os: "iOS" });
  assert.deepEqual(deviceName(WINDOWS_FIREFOX), {
    browser: "Firefox 128",
    os: "Windows",
  });
  assert.deepEqual(deviceName(MAC_CHROME), {
    browser: "Chrome 126",
    os: "macOS",
  });
  assert.deepEqual(
    deviceName(
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
    ),
    { browser: "Chrome 126", os: "Android 14" },
  );
  assert.deepEqual(
    deviceName(
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87",
    ),
    { browser: "Edge 126", os: "Windows" },
  );
  assert.deepEqual(deviceName("curl/8.5.0"), {
    browser: "curl 8",
    os: "unknown system",
  });
  assert.deepEqual(deviceName(undefined), {
    browser: "Unknown browser",
    os: "unknown system",
  });
});
