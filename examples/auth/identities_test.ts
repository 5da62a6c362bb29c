// The provider identity store: linked identities listed and removed by
// user through the index, and a database from before the index.
import assert from "node:assert/strict";
import { createIdentityStore } from "./oauth.ts";

Deno.test("identity store: link, list by user, unlink; one link per identity", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const identities = createIdentityStore(kv);
    assert.equal(await identities.link("google", "g-1", 1), true);
    assert.equal(await identities.link("github", "h-1", 1), true);
    assert.equal(await identities.link("google", "g-2", 2), true);
    // The same identity cannot be linked twice, nor to another user.
    assert.equal(await identities.link("google", "g-1", 2), false);
    assert.deepEqual(await identities.listByUser(1), [
      { provider: "github", sub: "h-1" },
      { provider: "google", sub: "g-1" },
    ]);
    assert.deepEqual(await identities.listByUser(2), [
      { provider: "google", sub: "g-2" },
    ]);
    assert.equal(await identities.unlinkUser(1), 2);
    assert.equal(await identities.find("google", "g-1"), null);
    assert.equal(await identities.find("github", "h-1"), null);
    assert.deepEqual(await identities.listByUser(1), []);
    assert.equal(await identities.find("google", "g-2"), 2);
    // Unlinked, the identity can link again (a new account).
    assert.equal(await identities.link("google", "g-1", 3), true);
    assert.deepEqual(await identities.listByUser(3), [
      { provider: "google", sub: "g-1" },
    ]);
  } finally {
    kv.close();
  }
});

Deno.test("identity store: identities linked before the index are found and removed", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // The layout an earlier version wrote: no index by user.
    await kv.set(["oauth_identities", "google", "g-1"], 1);
    await kv.set(["oauth_identities", "oidc", "o-9"], 9);
    const identities = createIdentityStore(kv);
    assert.deepEqual(await identities.listByUser(1), [
      { provider: "google", sub: "g-1" },
    ]);
    assert.equal(await identities.unlinkUser(9), 1);
    assert.equal(await identities.find("oidc", "o-9"), null);
    // A second store on the same database does not index again.
    const before = (await kv.get(["oauth_identities_indexed"])).versionstamp;
    await createIdentityStore(kv).listByUser(1);
    assert.equal(
      (await kv.get(["oauth_identities_indexed"])).versionstamp,
      before,
    );
  } finally {
    kv.close();
  }
});
